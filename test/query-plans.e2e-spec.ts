import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { assigneeListStatement } from '../src/approvals/approvals.repository';
import * as SQL from '../src/queue/queue.sql';
import {
  RUN_DETAILS,
  RUN_EVENTS_COUNT,
  RUN_EVENTS_PAGE,
  RUN_STEPS,
  runListStatements,
  type RunListFilter,
} from '../src/runs/runs.repository';
import { RESERVE } from '../src/budgets/budgets.repository';
import * as IDEMPOTENCY_SQL from '../src/idempotency/idempotency.sql';
import * as SCHEDULE_SQL from '../src/schedules/schedules.sql';
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

  /**
   * The plan of a statement exactly as the service sends it: prepared (so that its parameters take
   * the types the statement gives them), then executed under EXPLAIN with the values as literals.
   */
  async function plan(sql: string, params: unknown[]): Promise<PlanNode[]> {
    await db.query('DEALLOCATE ALL');
    await db.query(`PREPARE q AS ${sql}`);
    const literal = params.map((p) => (p === null ? 'NULL' : db.escapeLiteral(text(p))));
    const res = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) EXECUTE q${literal.length ? `(${literal.join(', ')})` : ''}`,
    );
    return nodes(res.rows[0]['QUERY PLAN'][0].Plan);
  }

  /** A parameter as PostgreSQL reads it from text: arrays as array literals. */
  function text(p: unknown): string {
    if (p instanceof Date) return p.toISOString();
    if (!Array.isArray(p)) return String(p);
    const items = p.map((v) =>
      v === null ? 'NULL' : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
    );
    return `{${items.join(',')}}`;
  }

  /** No sequential scan on any of `tables`, and each index of `indexes` used. */
  function expectIndexes(found: PlanNode[], tables: string[], indexes: string[]): void {
    const scanned = found.filter((n) => tables.includes(n['Relation Name'] ?? ''));
    expect(scanned.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(found.map((n) => n['Index Name'])).toEqual(expect.arrayContaining(indexes));
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
    // 5,000 API keys, so that a key's check is planned as on a real installation.
    await db.query(
      `INSERT INTO api_keys (workspace_id, name, key_hash)
       SELECT $1, 'k' || g, md5(g::text) || md5((g + 1)::text) FROM generate_series(1, 5000) g`,
      [workspaceId],
    );
    await db.query('ANALYZE');
  });

  afterAll(async () => {
    await db.end();
  });

  it('claims due steps through the partial index, not past the finished rows', async () => {
    for (const held of [[[], []] as unknown[][], [[workspaceId], [3]]]) {
      const found = await plan(SQL.CLAIM_STEPS, ['worker', 10, 30000, ...held, 32, true]);
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
    // An ended status and the status of runs still going both read the index of `ended_status`.
    const filters: RunListFilter[] = [{}, { status: 'FAILED' }, { status: 'RUNNING' }];
    for (const filter of filters) {
      const { page } = runListStatements(workspaceId, filter, 20, 40);
      const index = filter.status ? 'workflow_runs_ended_status_idx' : 'workflow_runs_list_idx';
      expectIndex(await plan(page.text, page.values), 'workflow_runs', index);
    }
  });

  it('pages and counts the run list in a creation-time window through the same indexes', async () => {
    const createdFrom = new Date(Date.now() - 3600_000);
    const createdTo = new Date(Date.now() - 1800_000);
    const filters: RunListFilter[] = [
      { createdFrom, createdTo },
      { createdFrom },
      { createdTo },
      { status: 'FAILED', createdFrom, createdTo },
    ];
    for (const filter of filters) {
      const { page, count } = runListStatements(workspaceId, filter, 20, 40);
      const index = filter.status ? 'workflow_runs_ended_status_idx' : 'workflow_runs_list_idx';
      expectIndex(await plan(page.text, page.values), 'workflow_runs', index);
      // Counting most of the table reads the table, the right plan (see the next test); a window
      // that is a small part of it is counted from the index.
      if (filter.createdFrom && filter.createdTo) {
        expectIndex(await plan(count.text, count.values), 'workflow_runs', index);
      }
    }
  });

  it("counts a workspace's runs through its index, not the whole table", async () => {
    // Here the big workspace is the whole table, where reading the table is the right plan for a
    // count; a workspace among others must be counted from the index alone.
    const small = await db.query<{ id: string }>(
      `INSERT INTO workspaces (name, slug) VALUES ('small', 'small') RETURNING id`,
    );
    const def = await db.query<{ id: string }>(
      `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
       VALUES ($1, 'd', '1', '[{"type":"task","name":"a","handler":"noop"}]') RETURNING id`,
      [small.rows[0].id],
    );
    await db.query(
      `INSERT INTO workflow_runs (workspace_id, definition_id, status)
       SELECT $1, $2, 'COMPLETED' FROM generate_series(1, 50)`,
      [small.rows[0].id, def.rows[0].id],
    );
    await db.query('ANALYZE workflow_runs');
    for (const status of ['FAILED', 'PENDING'] as const) {
      const { count } = runListStatements(small.rows[0].id, { status }, 20, 0);
      expectIndex(
        await plan(count.text, count.values),
        'workflow_runs',
        'workflow_runs_ended_status_idx',
      );
    }
  });

  it("takes the unfiltered total from the workspace's parts in run_counts, never from its runs", async () => {
    // 20,000 runs in the workspace; the list's one statement pages them and sums their count.
    const { count, batch } = runListStatements(workspaceId, {}, 20, 40);
    const counted = await plan(count.text, count.values);
    expect(counted.map((n) => n['Relation Name']).filter(Boolean)).toEqual(['run_counts']);
    // The statement the API sends: one read, and reads batched together, each with a cached key.
    for (const reads of [1, 20]) {
      const values = batch.values.map((v) => Array.from({ length: reads }, () => v));
      const keys = Array.from({ length: reads }, () => randomUUID());
      const listed = await plan(batch.text, [...values, keys]);
      expect(listed.filter((n) => n['Relation Name'] === 'workflow_runs').length).toBeGreaterThan(
        0,
      );
      expect(listed.filter((n) => n['Relation Name'] === 'run_counts').length).toBeGreaterThan(0);
      expectIndexes(
        listed,
        ['workflow_runs', 'api_keys'],
        ['workflow_runs_list_idx', 'workflow_runs_pkey', 'api_keys_pkey'],
      );
    }
  });

  it('claims due schedules through their partial index, probing running runs by index', async () => {
    const def = await db.query<{ id: string }>(
      `SELECT id FROM workflow_definitions WHERE workspace_id = $1 LIMIT 1`,
      [workspaceId],
    );
    // 5,000 schedules due in the coming day, one paused in ten, and 5,000 finished runs of the first.
    const schedules = await db.query<{ id: string }>(
      `INSERT INTO schedules (workspace_id, definition_id, cron, timezone, overlap_policy,
                              catchup_window_ms, paused, next_fire_at, due_at)
       SELECT $1, $2, '* * * * *', 'UTC', 'skip', 60000, g % 10 = 0,
              now() + (g || ' seconds')::interval, now() + (g || ' seconds')::interval
       FROM generate_series(1, 5000) g RETURNING id`,
      [workspaceId, def.rows[0].id],
    );
    const scheduleId = schedules.rows[0].id;
    await db.query(
      `UPDATE workflow_runs SET schedule_id = $1
       WHERE id IN (SELECT id FROM workflow_runs WHERE workspace_id = $2 LIMIT 5000)`,
      [scheduleId, workspaceId],
    );
    await db.query('ANALYZE schedules');
    await db.query('ANALYZE workflow_runs');
    const due = await plan(SCHEDULE_SQL.CLAIM_DUE, [new Date(Date.now() + 60_000), 100]);
    expectIndexes(
      due,
      ['schedules', 'workflow_runs'],
      ['schedules_due_idx', 'workflow_runs_schedule_active_idx'],
    );
    const buffered = await plan(SCHEDULE_SQL.CLAIM_BUFFERED, [100]);
    expectIndex(buffered, 'schedules', 'schedules_buffered_idx');
    const { page } = runListStatements(workspaceId, { scheduleId }, 20, 40);
    expectIndex(await plan(page.text, page.values), 'workflow_runs', 'workflow_runs_schedule_idx');
  });

  it("lists an assignee's approval requests through the assignee indexes, whatever the workspace holds", async () => {
    // 20,000 decided requests, one per finished step run, for two groups in turn; two pending ones.
    await db.query(
      `INSERT INTO approval_requests (workspace_id, run_id, step_run_id, step_name, content_key,
                                      content, decision, decided_by, decided_at, assignees, created_at)
       SELECT s.workspace_id, s.run_id, s.id, 'review', 'draft', '{}', 'approved', 'x', now(),
              ARRAY[CASE WHEN n % 2 = 0 THEN 'team' ELSE 'ops' END], now() - (n || ' seconds')::interval
       FROM (SELECT *, row_number() OVER () AS n FROM step_runs WHERE workspace_id = $1) s`,
      [workspaceId],
    );
    await db.query(
      `UPDATE approval_requests SET decision = NULL, decided_by = NULL, decided_at = NULL
       WHERE id IN (SELECT id FROM approval_requests WHERE 'team' = ANY (assignees) LIMIT 2)`,
    );
    await db.query(
      `INSERT INTO approval_assignees (request_id, workspace_id, assignee, created_at, decided)
       SELECT a.id, a.workspace_id, x, a.created_at, a.decision IS NOT NULL
       FROM approval_requests a, unnest(a.assignees) x`,
    );
    await db.query('ANALYZE approval_requests');
    await db.query('ANALYZE approval_assignees');
    const [cursor] = (
      await db.query<{ id: string }>(
        `SELECT id FROM approval_requests WHERE 'team' = ANY (assignees) ORDER BY created_at DESC
         OFFSET 100 LIMIT 1`,
      )
    ).rows;
    const tables = ['approval_assignees', 'approval_requests'];
    for (const order of ['newest', 'oldest'] as const) {
      for (const after of [undefined, cursor.id]) {
        for (const pending of [undefined, false, true]) {
          const { text, values } = assigneeListStatement(
            workspaceId,
            'team',
            pending,
            501,
            order,
            after,
          );
          const index = pending ? 'approval_assignees_pending_idx' : 'approval_assignees_list_idx';
          expectIndexes(await plan(text, values), tables, [index, 'approval_requests_pkey']);
        }
      }
    }
  });

  it('creates the runs of many requests at once, their definitions and keys probed by primary key', async () => {
    await db.query(
      `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
       SELECT $1, 'bulk-' || i, '1', '[{"type":"task","name":"a","handler":"noop"}]'
       FROM generate_series(1, 2000) i`,
      [workspaceId],
    );
    await db.query('ANALYZE workflow_definitions');
    const defs = (
      await db.query<{ id: string }>(
        'SELECT id FROM workflow_definitions WHERE workspace_id = $1 LIMIT 200',
        [workspaceId],
      )
    ).rows.map((r) => r.id);
    for (const batch of [defs.slice(0, 1), defs]) {
      for (const keyed of [false, true]) {
        const found = await plan(SQL.CREATE_RUNS, [
          batch.map(() => workspaceId),
          batch,
          batch.map(() => '{}'),
          batch.map(() => null),
          batch.map(() => (keyed ? randomUUID() : null)),
        ]);
        expectIndexes(
          found,
          ['workflow_definitions', 'api_keys'],
          ['workflow_definitions_pkey', 'api_keys_pkey'],
        );
      }
    }
  });

  it("reads a run's events and step runs through their run indexes", async () => {
    const events = await plan(RUN_EVENTS_PAGE, [runId, workspaceId, 20, 0]);
    expectIndex(events, 'run_events', 'run_events_pkey');
    expectIndex(
      await plan(RUN_EVENTS_COUNT, [runId, workspaceId]),
      'run_events',
      'run_events_pkey',
    );
    expectIndex(await plan(RUN_STEPS, [runId, workspaceId]), 'step_runs', 'step_runs_run_idx');
  });

  it("takes, drops, lists and delivers a run's signals through the run's own rows", async () => {
    // A buffered signal on each of the 20,000 runs.
    await db.query(
      `INSERT INTO run_signals (run_id, workspace_id, signal_type, payload, payload_bytes,
                                payload_preview)
       SELECT id, workspace_id, 'tick', '{}', 2, '{}' FROM workflow_runs WHERE workspace_id = $1`,
      [workspaceId],
    );
    await db.query('ANALYZE run_signals');
    const tables = ['run_signals', 'workflow_runs', 'step_runs'];
    for (const type of ['tick', null]) {
      const taken = await plan(SQL.TAKE_BUFFERED_SIGNAL, [randomUUID(), runId, type]);
      expectIndexes(taken, tables, ['run_signals_run_idx', 'step_runs_pkey']);
    }
    expectIndexes(await plan(SQL.DROP_RUN_SIGNALS, [runId]), tables, ['run_signals_run_idx']);
    // GET one run: one read, and the reads of 200 requests made at once (their batch at most).
    const others = (await db.query<{ id: string }>('SELECT id FROM workflow_runs LIMIT 199')).rows;
    const ids = [runId, ...others.map((r) => r.id)];
    for (const batch of [[runId], ids]) {
      const workspaces = batch.map(() => workspaceId);
      expectIndexes(await plan(RUN_DETAILS, [workspaces, batch, batch.map(() => null)]), tables, [
        'workflow_runs_pkey',
        'run_signals_run_idx',
      ]);
      // With a cached API key to check (README "API key cache"): one probe of its primary key.
      expectIndexes(
        await plan(RUN_DETAILS, [workspaces, batch, batch.map(() => randomUUID())]),
        [...tables, 'api_keys'],
        ['workflow_runs_pkey', 'run_signals_run_idx', 'api_keys_pkey'],
      );
    }
    expectIndexes(await plan(SQL.LOCK_RUN_FOR_SIGNAL, [workspaceId, runId]), tables, [
      'workflow_runs_pkey',
    ]);
    const delivered = await plan(SQL.DELIVER_SIGNAL, [
      runId,
      workspaceId,
      'tick',
      '{}',
      '{}',
      randomUUID(),
    ]);
    expectIndexes(delivered, tables, ['step_runs_run_idx', 'workflow_runs_pkey']);
  });

  it("checks a budget without reading the month's cost records, the run's through its index", async () => {
    // 20,000 cost records of this month: the check reads the month's figure from budget_spend.
    await db.query(
      `INSERT INTO cost_records (workspace_id, run_id, step_name, model, input_tokens,
                                 output_tokens, input_price_per_million, output_price_per_million,
                                 cost_usd)
       SELECT $1, id, 'a', 'm', 1, 1, 1, 1, 0.000002 FROM workflow_runs`,
      [workspaceId],
    );
    await db.query(
      `INSERT INTO workspace_budgets (workspace_id, monthly_limit_usd) VALUES ($1, 10)`,
      [workspaceId],
    );
    const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    await db.query(`INSERT INTO budget_spend VALUES ($1, $2, 0.04)`, [workspaceId, month]);
    await db.query('ANALYZE');
    const step = await db.query<{ id: string }>(`SELECT id FROM step_runs WHERE run_id = $1`, [
      runId,
    ]);
    const found = await plan(RESERVE, [
      workspaceId,
      runId,
      'a',
      randomUUID(),
      step.rows[0].id,
      'worker',
      '0.1',
      month,
      '1',
      '0.5',
      false,
      '0.1',
    ]);
    expectIndex(found, 'cost_records', 'cost_records_run_idx');
    expect(found.map((n) => n['Index Name'])).not.toContain('cost_records_workspace_time_idx');
  });

  describe("the executor's hot statements", () => {
    const RUNS_AND_STEPS = ['workflow_runs', 'step_runs'];
    /** One event, as the five parallel arrays of INSERT_EVENTS_FROM. */
    const events = () => [[runId], [workspaceId], [null], ['STEP_COMPLETED'], ['{}']];

    /**
     * One row-locking node, the run's: the step is locked by the UPDATE that completes it, since a
     * FOR UPDATE before it would write a row-lock WAL record of its own for every step.
     */
    function expectOnlyTheRunLocked(found: PlanNode[]): void {
      expect(found.filter((n) => n['Node Type'] === 'LockRows')).toHaveLength(1);
    }

    it('advances runs by primary key, whatever the history', async () => {
      const found = await plan(SQL.ADVANCE_RUNS, [
        'worker',
        30000,
        [randomUUID()],
        [runId],
        [workspaceId],
        ['{}'],
        [randomUUID()],
        [1],
        ['b'],
        ['task'],
        ['RUNNING'],
        ['{}'],
        [1],
        ...events(),
        true,
      ]);
      expectIndexes(found, RUNS_AND_STEPS, ['workflow_runs_pkey', 'step_runs_pkey']);
      expectOnlyTheRunLocked(found);
    });

    it('completes runs by primary key, whatever the history', async () => {
      const found = await plan(SQL.COMPLETE_RUNS, [
        'worker',
        [randomUUID()],
        [runId],
        [workspaceId],
        ['{}'],
        ['{}'],
        [0],
        [1],
        ['{"data": {}}'],
        ...events(),
        true,
      ]);
      expectIndexes(found, RUNS_AND_STEPS, ['workflow_runs_pkey', 'step_runs_pkey']);
      expectOnlyTheRunLocked(found);
    });

    it('locks, checks, releases and extends steps through an index', async () => {
      const step = randomUUID();
      expectIndexes(await plan(SQL.LOCK_RUN, [runId]), RUNS_AND_STEPS, ['workflow_runs_pkey']);
      // By primary key or through the small partial index over RUNNING rows, never the history.
      for (const [sql, params] of [
        [SQL.CHECK_OWNERSHIP, [step, 'worker']],
        [SQL.RELEASE_STEP, [step, 'worker', 'cause', 3, 1]],
        [SQL.EXTEND_LEASES, ['worker', [step], 30000]],
      ] as const) {
        const found = await plan(sql, [...params]);
        expectIndexes(found, RUNS_AND_STEPS, []);
        const used = found.map((n) => n['Index Name']);
        expect(used.some((i) => i === 'step_runs_pkey' || i === 'step_runs_lease_idx')).toBe(true);
      }
    });

    it('resumes a run through its primary key and its step runs through the run index', async () => {
      const found = await plan(SQL.RESUME_RUN, [runId, workspaceId, 'go', '{}', '{}']);
      expectIndexes(found, RUNS_AND_STEPS, ['workflow_runs_pkey', 'step_runs_run_idx']);
    });
  });

  describe('Idempotency-Key', () => {
    const hash = '\\x' + '00'.repeat(32);
    const write = (answerKey: string) => [
      ['ws:w'],
      [answerKey],
      [randomUUID()],
      [201],
      ['{}'],
      ['{}'],
      [false],
      ['ws:w'],
      [randomUUID()],
      ['POST'],
      ['/v1/workflow-runs'],
      [hash],
      [null],
      [randomUUID()],
      60000,
      86400000,
    ];

    it("writes claims and answers by primary key even in a plan made on an empty table (WRITE's connections)", async () => {
      // The cached (generic) plan of a connection that prepared WRITE while the table was new, under
      // the settings those connections run with.
      await db.query('BEGIN');
      try {
        for (const [name, value] of IDEMPOTENCY_SQL.WRITE_SESSION_SETTINGS) {
          await db.query(`SET LOCAL ${name} = ${value}`);
        }
        await db.query('SET LOCAL plan_cache_mode = force_generic_plan');
        const found = await plan(IDEMPOTENCY_SQL.WRITE, write('k'));
        expectIndexes(found, ['idempotency_keys'], ['idempotency_keys_pkey']);
      } finally {
        await db.query('ROLLBACK');
      }
    });

    it('claims, writes and cleans up keys through their indexes in a big table', async () => {
      await db.query(
        `INSERT INTO idempotency_keys (scope, key, method, path, body_hash, expires_at, status, body)
         SELECT 'ws:' || (g % 10), 'k' || g, 'POST', '/v1/workflow-runs', '\\x00',
                now() + (g || ' seconds')::interval, 201, '{}'
         FROM generate_series(1, 20000) g`,
      );
      await db.query('ANALYZE idempotency_keys');
      expectIndexes(
        await plan(IDEMPOTENCY_SQL.WRITE, write('k5')),
        ['idempotency_keys'],
        ['idempotency_keys_pkey'],
      );
      const claim = await plan(IDEMPOTENCY_SQL.CLAIM, [
        'ws:1',
        'k11',
        'POST',
        '/v1/workflow-runs',
        hash,
        null,
        randomUUID(),
        60000,
        86400000,
        false,
      ]);
      expectIndexes(claim, ['idempotency_keys'], ['idempotency_keys_pkey']);
      // The claim made with the API-key lookup: the key by its hash (the insert's conflict check
      // goes through the primary key by itself, in no plan node).
      await db.query(
        `INSERT INTO api_keys (workspace_id, name, key_hash)
         SELECT $1, 'plans ' || g, lpad(g::text, 64, '0') FROM generate_series(1, 2000) g`,
        [workspaceId],
      );
      await db.query('ANALYZE api_keys');
      expectIndexes(
        await plan(IDEMPOTENCY_SQL.AUTHENTICATE_AND_CLAIM, [
          '5'.padStart(64, '0'),
          'k12',
          'POST',
          '/v1/workflow-runs',
          hash,
          randomUUID(),
          60000,
          86400000,
        ]),
        ['api_keys', 'idempotency_keys'],
        ['api_keys_key_hash_key'],
      );
      expectIndex(
        await plan(IDEMPOTENCY_SQL.DELETE_EXPIRED, [1000]),
        'idempotency_keys',
        'idempotency_keys_expires_idx',
      );
    });
  });
});
