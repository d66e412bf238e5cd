import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's insert without foreign-key checks (issue 17, measured with pg_waldump on scenario 1(a)).
 *
 * `workflow_runs` loses its foreign keys to `workspaces` and `workflow_definitions`. Each check was a
 * locking lookup (`SELECT 1 … FOR KEY SHARE`) of the workspace row and of the definition row for
 * every run: two statements inside every create, a WAL record each, and, because every run of a
 * workspace locks the same two rows, a MultiXact for most of them (759 per 1,000 runs). A run is
 * only ever inserted for a definition read in the run's workspace (CREATE_RUN, which schedules use
 * too, in the same statement; the slow path of a create in its transaction; a child run from the
 * definition its step looked up), and neither workspaces nor definitions are ever deleted, so the
 * checks bought nothing; `step_runs` and `run_events` gave up theirs for the same reason
 * (ExecutorWriteCosts).
 */
export class RunForeignKeys1763900017000 implements MigrationInterface {
  name = 'RunForeignKeys1763900017000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_workspace_id_fkey`);
    await q.query(`ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_definition_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_definition_id_fkey
         FOREIGN KEY (definition_id) REFERENCES workflow_definitions(id)`,
    );
    await q.query(
      `ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_workspace_id_fkey
         FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE`,
    );
  }
}
