import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A step whose outcome cannot be recorded must not be executed again forever (issue 11). Each step
 * run counts, durably, the executions in a row that ended without their outcome recorded (the
 * recording failed and the step was handed back, or its process died and the lease expired), with
 * the last cause. At the limit (STEP_RECORD_MAX_FAILURES) the row is left PENDING without a due time,
 * which the claim never takes, and `step_runs_unrecorded_idx` (empty in normal operation) finds it to
 * record its failure.
 */
export class StepRecordFailures1763900005000 implements MigrationInterface {
  name = 'StepRecordFailures1763900005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE step_runs ADD COLUMN record_failures integer NOT NULL DEFAULT 0,
                             ADD COLUMN record_error text`,
    );
    await q.query(
      `CREATE INDEX step_runs_unrecorded_idx ON step_runs (id)
         WHERE status = 'PENDING' AND due_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // Steps held back to have their failure recorded (PENDING without a due time) would never be
    // claimed by the code before this migration: make them due, so they execute again.
    await q.query(`UPDATE step_runs SET due_at = now() WHERE status = 'PENDING' AND due_at IS NULL`);
    await q.query(`DROP INDEX step_runs_unrecorded_idx`);
    await q.query(`ALTER TABLE step_runs DROP COLUMN record_error, DROP COLUMN record_failures`);
  }
}
