import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lighter writes on the executor's hot path (issue 6, measured with `npm run bench`).
 *
 * - `workflow_runs` keeps 20% of each page free, so that the per-step update of a run (state,
 *   position, updated_at: no indexed column) is a HOT update that touches none of its five indexes.
 * - `run_events` and `step_runs` lose their foreign key to `workflow_runs`: every row they get is
 *   written by a statement that has just locked or inserted the run, and runs are never deleted, so
 *   the per-row key check (a locking lookup of the run for each event) bought nothing.
 */
export class ExecutorWriteCosts1763900003000 implements MigrationInterface {
  name = 'ExecutorWriteCosts1763900003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs SET (fillfactor = 80)`);
    await q.query(`ALTER TABLE run_events DROP CONSTRAINT run_events_run_id_fkey`);
    await q.query(`ALTER TABLE step_runs DROP CONSTRAINT step_runs_run_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE step_runs ADD CONSTRAINT step_runs_run_id_fkey
         FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE run_events ADD CONSTRAINT run_events_run_id_fkey
         FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE`,
    );
    await q.query(`ALTER TABLE workflow_runs RESET (fillfactor)`);
  }
}
