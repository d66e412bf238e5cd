import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The items of `map` steps (README "Map steps"): one row per element of the mapped array, so that
 * the items beyond the step's concurrency wait in the database rather than in a process's memory, an
 * executor that takes the step over after a crash continues with the unsettled ones, and a retry runs
 * only the failed ones. Keyed by the map's step run and the element's index. The element itself is not
 * copied: it is read from the run's state, which the map does not change until it completes.
 *
 * `status`: PENDING (waiting for a slot), RUNNING (taken by the map step's current owner), COMPLETED,
 * FAILED, CANCELLED. `attempts` counts the item's executions; `map_attempt` is the map step's attempt
 * that last queued it, so that an automatic retry of the map re-queues the items an earlier attempt
 * failed while an owner taking over after a crash keeps this attempt's failures. The partial index serves the one hot read, the next PENDING items in order.
 */
export class MapItems1763900010000 implements MigrationInterface {
  name = 'MapItems1763900010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE map_items (
        step_run_id uuid NOT NULL REFERENCES step_runs(id) ON DELETE CASCADE,
        item_index int NOT NULL,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        status varchar(16) NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0,
        map_attempt int NOT NULL,
        output jsonb,
        error text,
        started_at timestamptz,
        completed_at timestamptz,
        PRIMARY KEY (step_run_id, item_index)
      )`);
    await q.query(
      `CREATE INDEX map_items_pending_idx ON map_items (step_run_id, item_index)
       WHERE status = 'PENDING'`,
    );
    await q.query(
      `CREATE INDEX map_items_run_idx ON map_items (run_id) WHERE status IN ('PENDING', 'RUNNING')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE map_items`);
  }
}
