import { Client } from 'pg';
import * as SQL from '../src/executor/executor.sql';
import * as SENDER_SQL from '../src/webhooks/webhook-sender.sql';
import { fileDatabaseUrl } from './support/database';

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
};

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * The hot queries must use their indexes, whatever the history in the tables: with many finished rows
 * and fresh statistics, no sequential scan may appear on the big tables.
 */
describe('query plans of the hot paths', () => {
  let db: Client;
  let workspaceId: string;
  let runId: string;

  async function plan(sql: string, params: unknown[]): Promise<PlanNode[]> {
    await db.query('DEALLOCATE ALL');
    await db.query(`PREPARE q AS ${sql}`);
    const literal = params.map((p) =>
      !Array.isArray(p)
        ? `'${String(p)}'`
        : p.length === 0
          ? `'{}'`
          : typeof p[0] === 'number'
            ? `ARRAY[${p.join(',')}]::int[]`
            : `ARRAY[${p.map((v) => `'${String(v)}'`).join(',')}]::uuid[]`,
    );
    const res = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) EXECUTE q${literal.length ? `(${literal.join(', ')})` : ''}`,
    );
    return nodes(res.rows[0]['QUERY PLAN'][0].Plan);
  }

  function expectIndex(found: PlanNode[], table: string, index: string): void {
    const onTable = found.filter((n) => n['Relation Name'] === table);
    expect(onTable.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    // Bitmap scans name the index on their child node, which carries no relation name.
    expect(found.map((n) => n['Index Name'])).toContain(index);
  }

  beforeAll(async () => {
    db = new Client({ connectionString: await fileDatabaseUrl() });
    await db.connect();
    const ws = await db.query<{ id: string }>(
      `INSERT INTO workspaces (name, slug) VALUES ('plans', 'plans') RETURNING id`,
    );
    workspaceId = ws.rows[0].id;
    const def = await db.query<{ id: string }>(
      `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
       VALUES ($1, 'd', '1', '[{"type":"task","name":"a","handler":"noop"}]') RETURNING id`,
      [workspaceId],
    );
    // 20,000 finished runs, each with a finished step run and two events.
    await db.query(
      `INSERT INTO workflow_runs (workspace_id, definition_id, status, created_at)
       SELECT $1, $2, 'COMPLETED', now() - (g || ' seconds')::interval FROM generate_series(1, 20000) g`,
      [workspaceId, def.rows[0].id],
    );
    await db.query(
      `INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, completed_at)
       SELECT id, workspace_id, 0, 'a', 'task', 'COMPLETED', now() FROM workflow_runs`,
    );
    await db.query(
      `INSERT INTO run_events (run_id, workspace_id, event_type)
       SELECT id, workspace_id, t FROM workflow_runs, unnest(ARRAY['WORKFLOW_STARTED','WORKFLOW_COMPLETED']) t`,
    );
    runId = (await db.query<{ id: string }>('SELECT id FROM workflow_runs LIMIT 1')).rows[0].id;
    await db.query('ANALYZE');
  });

  afterAll(async () => {
    await db.end();
  });

  it('claims due steps through the partial index, not past the finished rows', async () => {
    for (const held of [[[], []] as unknown[][], [[workspaceId], [3]]]) {
      const found = await plan(SQL.CLAIM_STEPS, ['worker', 10, 30000, ...held, 32]);
      expectIndex(found, 'step_runs', 'step_runs_workspace_due_idx');
      // The locking step reaches the candidates by primary key, never by re-reading the backlog.
      expect(found.map((n) => n['Index Name'])).toContain('step_runs_pkey');
    }
    expectIndex(await plan(SQL.DUE_WORKSPACES, []), 'step_runs', 'step_runs_workspace_due_idx');
  });

  it('claims due webhook deliveries through their partial index per webhook', async () => {
    const hook = await db.query<{ id: string }>(
      `INSERT INTO webhooks (workspace_id, url, events, secret)
       VALUES ($1, 'https://example.com/', '{workflow.completed}', 's') RETURNING id`,
      [workspaceId],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_id, workspace_id, message_id, event_type, body, status)
       SELECT $1, $2, 'msg_' || g, 'workflow.completed', '{}', 'delivered' FROM generate_series(1, 20000) g`,
      [hook.rows[0].id, workspaceId],
    );
    await db.query('ANALYZE webhook_deliveries');
    const found = await plan(SENDER_SQL.CLAIM_DELIVERIES, [
      'sender',
      16,
      20000,
      3,
      0,
      [hook.rows[0].id],
      [workspaceId],
      4,
    ]);
    expectIndex(found, 'webhook_deliveries', 'webhook_deliveries_webhook_due_idx');
    expect(found.map((n) => n['Index Name'])).toContain('webhook_deliveries_pkey');
  });

  it('finds expired leases through the partial index over running steps', async () => {
    expectIndex(await plan(SQL.REAP_EXPIRED_LEASES, [3]), 'step_runs', 'step_runs_lease_idx');
  });

  it('finds steps whose outcome could not be recorded through their own (empty) partial index', async () => {
    // Runs at every poll of every executor: it must cost nothing, whatever the history.
    const found = await plan(SQL.CLAIM_UNRECORDED_STEPS, ['worker', 20, 30000]);
    expectIndex(found, 'step_runs', 'step_runs_unrecorded_idx');
    const onRuns = found.filter((n) => n['Relation Name'] === 'workflow_runs');
    expect(onRuns.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  });

  it('pages the run list by workspace, with and without a status filter', async () => {
    expectIndex(
      await plan(
        `SELECT id FROM workflow_runs WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
        [workspaceId],
      ),
      'workflow_runs',
      'workflow_runs_list_idx',
    );
    expectIndex(
      await plan(
        `SELECT id FROM workflow_runs WHERE workspace_id = $1 AND status = $2 ORDER BY created_at DESC, id DESC LIMIT 20`,
        [workspaceId, 'FAILED'],
      ),
      'workflow_runs',
      'workflow_runs_status_idx',
    );
  });

  it("reads a run's events and step runs through their run indexes", async () => {
    expectIndex(
      await plan(
        `SELECT id FROM run_events WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq LIMIT 20`,
        [runId, workspaceId],
      ),
      'run_events',
      'run_events_run_idx',
    );
    expectIndex(
      await plan(`SELECT id FROM step_runs WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq`, [
        runId,
        workspaceId,
      ]),
      'step_runs',
      'step_runs_run_idx',
    );
  });
});
