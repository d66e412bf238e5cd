import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signals that arrive early (README "Signals"): `POST /v1/workflow-runs/:id/signals` for a run that is
 * not waiting for that signal right now keeps it here until an `external_event` step of its type
 * consumes it (the oldest first), or the run ends and drops it. A consumed or dropped signal's row is
 * deleted; its events keep the record.
 *
 * `seq` fixes the order signals are consumed in: rows of one run are inserted under the run's row lock,
 * so their `seq` order is the order they were accepted (the time-ordered id only orders to the
 * millisecond). `payload_bytes` and `payload_preview` are what a run's read lists, so that reading a
 * run never loads every buffered payload. The one index serves every read, all per run: the oldest of
 * a type (a run holds at most MAX_BUFFERED_SIGNALS_PER_RUN rows), the list, and the drop.
 *
 * `workflow_runs.buffered_signals` counts a run's rows, kept by the same statements under the run's
 * lock: the cap is checked without counting, and the executor's one-statement completion of a run
 * (COMPLETE_RUNS) can tell, from the run row it locks, whether the run still holds signals to drop (a
 * row lock re-reads the locked row once granted; a read of this table inside that statement could
 * miss a signal committed while it waited).
 */
export class RunSignals1763900015000 implements MigrationInterface {
  name = 'RunSignals1763900015000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE run_signals (
        id uuid PRIMARY KEY DEFAULT uuid_v7(),
        seq bigserial NOT NULL,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        signal_type varchar(100) NOT NULL,
        payload jsonb NOT NULL,
        payload_bytes int NOT NULL,
        payload_preview text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX run_signals_run_idx ON run_signals (run_id, seq)`);
    await q.query(`ALTER TABLE workflow_runs ADD COLUMN buffered_signals int NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP COLUMN buffered_signals`);
    await q.query(`DROP TABLE run_signals`);
  }
}
