import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { RunCounts1763900018000 } from '../migrations/1763900018000-RunCounts';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import { createDefinition } from './support/workflows';

const NOOP = [{ type: 'task', name: 'a', handler: 'noop' }];

/**
 * The run list's `total` without the list's filters comes from `run_counts` (migration RunCounts):
 * parts added by a trigger on every insert and delete of runs, folded now and then. It must stay
 * exactly the number of runs, whoever inserts them and however many at once.
 */
describe('run counts', () => {
  let a: TestApp;
  let b: TestApp;
  let db: Client;

  beforeAll(async () => {
    // No executor: the runs only need to exist.
    a = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    b = await createTestApp({ EXECUTOR_ENABLED: 'false' }, { databaseUrl: a.databaseUrl });
    db = new Client({ connectionString: a.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await b?.close();
    await a?.close();
  });

  async function parts(workspaceId: string): Promise<{ rows: number; sum: number }> {
    const res = await db.query<{ rows: number; sum: number }>(
      'SELECT count(*)::int AS rows, COALESCE(sum(runs), 0)::int AS sum FROM run_counts WHERE workspace_id = $1',
      [workspaceId],
    );
    return res.rows[0];
  }

  it('keeps the total exact under concurrent creates on two replicas, and folds its parts', async () => {
    const { workspace, key } = await createWorkspaceWithKey(a.http);
    const definitionId = await createDefinition(a.http, key, NOOP);
    const total = 1000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        const t = worker % 2 === 0 ? a : b;
        while (next < total) {
          next++;
          const res = await t.http
            .post('/v1/workflow-runs')
            .set('x-api-key', key)
            .send({ definitionId, input: {} });
          expect(res.status).toBe(201);
        }
      }),
    );
    for (const t of [a, b]) {
      const res = await t.http.get('/v1/workflow-runs?pageSize=1').set('x-api-key', key);
      expect(res.body.meta).toEqual({ page: 1, pageSize: 1, total, totalPages: total });
    }
    const counted = await parts(workspace.id);
    expect(counted.sum).toBe(total);
    // About one create in 64 folds the parts into one: 1,000 creates leave far fewer than 1,000
    // (the chance of 800 creates in a row without a fold is below 1 in 100,000).
    expect(counted.rows).toBeLessThan(800);
    // A filter counts the runs themselves, and agrees.
    const filtered = await a.http
      .get(`/v1/workflow-runs?pageSize=1&definitionId=${definitionId}`)
      .set('x-api-key', key);
    expect(filtered.body.meta.total).toBe(total);
  });

  it('counts runs however they are inserted or deleted, several workspaces in one statement', async () => {
    const one = await createWorkspaceWithKey(a.http);
    const two = await createWorkspaceWithKey(a.http);
    const defOne = await createDefinition(a.http, one.key, NOOP);
    const defTwo = await createDefinition(a.http, two.key, NOOP);
    // Inserted by SQL (an operator's import, say): one statement for both workspaces.
    await db.query(
      `INSERT INTO workflow_runs (workspace_id, definition_id)
       SELECT CASE WHEN g % 3 = 0 THEN $1::uuid ELSE $2::uuid END,
              CASE WHEN g % 3 = 0 THEN $3::uuid ELSE $4::uuid END
       FROM generate_series(1, 30) g`,
      [one.workspace.id, two.workspace.id, defOne, defTwo],
    );
    expect((await parts(one.workspace.id)).sum).toBe(10);
    expect((await parts(two.workspace.id)).sum).toBe(20);
    await db.query(
      `DELETE FROM workflow_runs WHERE id IN
         (SELECT id FROM workflow_runs WHERE workspace_id = $1 LIMIT 4)`,
      [two.workspace.id],
    );
    const res = await a.http.get('/v1/workflow-runs').set('x-api-key', two.key);
    expect(res.body.meta.total).toBe(16);
    // A statement that rolls back leaves no part behind.
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO workflow_runs (workspace_id, definition_id) SELECT $1, $2 FROM generate_series(1, 5)`,
      [one.workspace.id, defOne],
    );
    await db.query('ROLLBACK');
    expect((await parts(one.workspace.id)).sum).toBe(10);
  });

  it('counts the runs that exist when the migration runs', async () => {
    const { workspace, key } = await createWorkspaceWithKey(a.http);
    const definitionId = await createDefinition(a.http, key, NOOP);
    const runner = { query: (sql: string) => db.query(sql) } as unknown as QueryRunner;
    const migration = new RunCounts1763900018000();
    await db.query('BEGIN');
    try {
      await migration.down(runner);
      await db.query(
        `INSERT INTO workflow_runs (workspace_id, definition_id) SELECT $1, $2 FROM generate_series(1, 7)`,
        [workspace.id, definitionId],
      );
      await migration.up(runner);
      expect((await parts(workspace.id)).sum).toBe(7);
      await db.query('COMMIT');
    } catch (err) {
      await db.query('ROLLBACK');
      throw err;
    }
    const res = await a.http.get('/v1/workflow-runs').set('x-api-key', key);
    expect(res.body.meta.total).toBe(7);
  });
});
