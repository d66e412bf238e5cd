import { Client } from 'pg';
import * as SQL from '../src/queue/queue.sql';
import { fileDatabaseUrl } from './support/database';

/**
 * EXTEND_LEASES updates every in-flight step of a worker at once. It must never wait for a step row
 * another transaction holds (an outcome being recorded): two statements locking several step rows in
 * different orders deadlock (seen under load in the benchmark, 40P01).
 */
describe('extending step leases', () => {
  let db: Client;
  let other: Client;

  beforeAll(async () => {
    const url = await fileDatabaseUrl();
    db = new Client({ connectionString: url });
    other = new Client({ connectionString: url });
    await db.connect();
    await other.connect();
    // A statement that waits for the held row fails here instead of hanging the file.
    await db.query(`SET lock_timeout = '10s'`);
  });
  afterAll(async () => {
    await other?.end();
    await db?.end();
  });

  it('extends the leases it can take at once and skips the steps another transaction holds', async () => {
    const ws = await db.query<{ id: string }>(
      `INSERT INTO workspaces (name, slug) VALUES ('leases', 'leases') RETURNING id`,
    );
    const workspaceId = ws.rows[0].id;
    const def = await db.query<{ id: string }>(
      `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
       VALUES ($1, 'd', '1', '[{"type":"task","name":"a","handler":"noop"}]') RETURNING id`,
      [workspaceId],
    );
    const runs = await db.query<{ id: string }>(
      `INSERT INTO workflow_runs (workspace_id, definition_id, status)
       SELECT $1, $2, 'RUNNING' FROM generate_series(1, 3) RETURNING id`,
      [workspaceId, def.rows[0].id],
    );
    const steps = await db.query<{ id: string }>(
      `INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status,
                              locked_by, lock_expires_at, started_at)
       SELECT id, $1, 0, 'a', 'task', 'RUNNING', 'worker-1', now() + interval '1 second', now()
       FROM workflow_runs WHERE id = ANY ($2::uuid[]) RETURNING id`,
      [workspaceId, runs.rows.map((r) => r.id)],
    );
    const ids = steps.rows.map((r) => r.id);
    const held = ids[1];

    // Another transaction is recording the middle step's outcome: it holds that row.
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM step_runs WHERE id = $1 FOR UPDATE', [held]);
    try {
      // Resolves while that transaction still holds the row (a wait would never end here).
      const extended = await db.query(SQL.EXTEND_LEASES, ['worker-1', ids, 60_000]);
      expect(extended.rowCount).toBe(2);
      const leases = await db.query<{ id: string; extended: boolean }>(
        `SELECT id, lock_expires_at > now() + interval '30 seconds' AS extended
         FROM step_runs WHERE id = ANY ($1::uuid[])`,
        [ids],
      );
      expect(Object.fromEntries(leases.rows.map((r) => [r.id, r.extended]))).toEqual({
        [ids[0]]: true,
        [held]: false,
        [ids[2]]: true,
      });
    } finally {
      await other.query('ROLLBACK');
    }
    // Once the row is free, the next extension takes it; another worker's steps never.
    expect((await db.query(SQL.EXTEND_LEASES, ['worker-1', ids, 60_000])).rowCount).toBe(3);
    expect((await db.query(SQL.EXTEND_LEASES, ['worker-2', ids, 60_000])).rowCount).toBe(0);
  });
});
