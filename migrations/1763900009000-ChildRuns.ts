import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Child runs (the `workflow` step, README "Workflow steps"). A child is an ordinary run that names the
 * run and the step run that started it. `parent_wait_attempt` is the attempt of that step which waits
 * for the child: the child's end wakes the step only while the step is still that attempt, so a child
 * left behind by an earlier attempt (or started with `waitForCompletion: false`, null here) wakes
 * nothing. `parent_item_index` is the item of a `map` step whose sub-step is a workflow (null
 * otherwise). `depth` counts the ancestors (0 for a run started through the API), so that the depth cap
 * is checked without walking the chain. The step run is not a foreign key: step runs are deleted with
 * their run, and the parent's id already ties the two together.
 *
 * One index serves the list filter `parentRunId` (ordered like every list index) and the walk down to
 * the children of a run (cancel cascade, cost roll-up); partial, so root runs add nothing to it.
 */
export class ChildRuns1763900009000 implements MigrationInterface {
  name = 'ChildRuns1763900009000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workflow_runs
        ADD COLUMN parent_run_id uuid REFERENCES workflow_runs(id) ON DELETE CASCADE,
        ADD COLUMN parent_step_run_id uuid,
        ADD COLUMN parent_wait_attempt int,
        ADD COLUMN parent_item_index int,
        ADD COLUMN depth int NOT NULL DEFAULT 0`);
    await q.query(
      `CREATE INDEX workflow_runs_parent_idx ON workflow_runs (parent_run_id, created_at DESC, id DESC)
       WHERE parent_run_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX workflow_runs_parent_idx`);
    await q.query(`
      ALTER TABLE workflow_runs
        DROP COLUMN parent_run_id, DROP COLUMN parent_step_run_id, DROP COLUMN parent_wait_attempt,
        DROP COLUMN parent_item_index,
        DROP COLUMN depth`);
  }
}
