import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run list's exact `total` without counting the workspace's runs at every request (issue 17: with
 * 100,000 runs in a workspace, `count(*)` was most of the list's cost).
 *
 * `run_counts` holds parts of each workspace's run count: every statement that inserts runs adds one
 * row per workspace it inserted into (a statement trigger over the inserted rows, so every way a run
 * is created counts, SQL included), and a statement that deletes runs adds a negative one. Rows are
 * only ever inserted, never updated, so concurrent creates never wait on one another's count. A
 * workspace's total is the sum of its rows, read in one snapshot, so it is exactly the runs that
 * snapshot sees. To keep the sum short, about one inserting statement in 64 (at random) also folds
 * its workspaces' rows into one each: it deletes the rows it can lock at once (SKIP LOCKED: never waiting on a
 * concurrent fold) and inserts their sum, in the creating transaction, so the fold commits or rolls
 * back with it.
 */
export class RunCounts1763900018000 implements MigrationInterface {
  name = 'RunCounts1763900018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE run_counts (workspace_id uuid NOT NULL, runs bigint NOT NULL)`);
    await q.query(`CREATE INDEX run_counts_workspace_idx ON run_counts (workspace_id)`);
    await q.query(`
      CREATE FUNCTION run_counts_fold(ws uuid) RETURNS void LANGUAGE sql AS $$
        WITH folded AS (
          DELETE FROM run_counts
          WHERE ctid = ANY (ARRAY(SELECT ctid FROM run_counts WHERE workspace_id = ws
                                  FOR UPDATE SKIP LOCKED))
          RETURNING runs
        )
        INSERT INTO run_counts (workspace_id, runs)
        SELECT ws, sum(runs) FROM folded HAVING count(*) > 0
      $$`);
    await q.query(`
      CREATE FUNCTION run_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO run_counts (workspace_id, runs)
        SELECT workspace_id, count(*) FROM created GROUP BY workspace_id;
        IF random() < 1.0 / 64 THEN
          PERFORM run_counts_fold(workspace_id) FROM (SELECT DISTINCT workspace_id FROM created) c;
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE FUNCTION run_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO run_counts (workspace_id, runs)
        SELECT workspace_id, -count(*) FROM deleted GROUP BY workspace_id;
        RETURN NULL;
      END
      $$`);
    // CREATE TRIGGER locks out writers of workflow_runs until this transaction commits, so the
    // count below and the triggers' rows never overlap or miss a run.
    await q.query(`
      CREATE TRIGGER workflow_runs_count_insert AFTER INSERT ON workflow_runs
      REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION run_counts_insert()`);
    await q.query(`
      CREATE TRIGGER workflow_runs_count_delete AFTER DELETE ON workflow_runs
      REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION run_counts_delete()`);
    await q.query(`
      INSERT INTO run_counts (workspace_id, runs)
      SELECT workspace_id, count(*) FROM workflow_runs GROUP BY workspace_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER workflow_runs_count_delete ON workflow_runs`);
    await q.query(`DROP TRIGGER workflow_runs_count_insert ON workflow_runs`);
    await q.query(`DROP FUNCTION run_counts_delete()`);
    await q.query(`DROP FUNCTION run_counts_insert()`);
    await q.query(`DROP FUNCTION run_counts_fold(uuid)`);
    await q.query(`DROP TABLE run_counts`);
  }
}
