import { Client } from 'pg';
import { call, request, type Service } from '../lib/service';
import { log, nowMs, percentile } from '../lib/util';

/**
 * 6. Scale: `total` runs with their step runs and run events inserted with SQL (generate_series)
 * across the given workspaces, then VACUUM ANALYZE (the state autovacuum keeps a table in), then the
 * p99 of the API's read queries over HTTP.
 *
 * Shape of the data, per run (workspace = n mod 10, created_at spread evenly over the last 90 days; run
 * and step-run ids time-ordered from created_at, as the service makes them):
 * - 85% COMPLETED: 3 completed step runs; 8 events (WORKFLOW_STARTED, STEP_STARTED/COMPLETED x3,
 *   WORKFLOW_COMPLETED)
 * - 8% FAILED: step 0 completed, step 1 FAILED; 6 events
 * - 4% CANCELLED: step 0 completed, step 1 CANCELLED; 5 events
 * - 3% WAITING: step 0 completed, step 1 WAITING on a timer due in 30 days (so it sits in the claim
 *   index without coming due); 4 events
 */
export async function insertRuns(
  db: Client,
  workspaceIds: string[],
  definitionIds: string[],
  total: number,
): Promise<{ runs: number; stepRuns: number; events: number; seconds: number }> {
  const started = nowMs();
  await db.query('SET synchronous_commit = off');
  await db.query(`SET maintenance_work_mem = '256MB'`);
  await db.query(`SET work_mem = '256MB'`);
  // Bulk-load the usual way: secondary indexes dropped during the load and rebuilt after it from their
  // own definitions, and (when the role may) foreign-key triggers skipped for the session.
  const indexes = (
    await db.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
       WHERE schemaname = 'public' AND tablename IN ('workflow_runs', 'step_runs', 'run_events')
         AND indexname NOT LIKE '%_pkey'`,
    )
  ).rows;
  for (const ix of indexes) await db.query(`DROP INDEX ${ix.name}`);
  const replica = await db.query(`SET session_replication_role = replica`).then(
    () => true,
    () => false,
  );
  const hasRunCounts =
    (await db.query(`SELECT to_regclass('run_counts') IS NOT NULL AS ok`)).rows[0].ok === true;
  const chunk = 100_000;
  const spent = { gen: 0, runs: 0, steps: 0, events: 0, commit: 0 };
  const timed = async (k: keyof typeof spent, sql: string, params?: unknown[]) => {
    const t0 = nowMs();
    await db.query(sql, params);
    spent[k] += nowMs() - t0;
  };
  for (let lo = 1; lo <= total; lo += chunk) {
    const hi = Math.min(total, lo + chunk - 1);
    await db.query('BEGIN');
    await timed(
      'gen',
      `CREATE TEMP TABLE gen ON COMMIT DROP AS
       SELECT x.*,
              uuid_v7(created_at) AS id,
              uuid_v7(created_at) AS s0,
              uuid_v7(created_at + interval '10 ms') AS s1,
              uuid_v7(created_at + interval '20 ms') AS s2
       FROM (SELECT g AS n,
                    ($1::uuid[])[1 + g % $4] AS workspace_id,
                    ($2::uuid[])[1 + g % $4] AS definition_id,
                    CASE WHEN (g / 10) % 100 < 85 THEN 'COMPLETED'
                         WHEN (g / 10) % 100 < 93 THEN 'FAILED'
                         WHEN (g / 10) % 100 < 97 THEN 'CANCELLED'
                         ELSE 'WAITING' END AS status,
                    now() - interval '90 days' + (g::float8 / $3) * interval '90 days' AS created_at
             FROM generate_series($5::int, $6::int) g) x`,
      [workspaceIds, definitionIds, total, workspaceIds.length, lo, hi],
    );
    await timed(
      'runs',
      `INSERT INTO workflow_runs (id, workspace_id, definition_id, status, input, state, output, error,
                                  current_step_index, steps_executed, created_at, updated_at, finished_at)
       SELECT id, workspace_id, definition_id, status,
              jsonb_build_object('i', n),
              CASE status WHEN 'COMPLETED' THEN '{"i":0,"one":{},"two":{},"three":{}}'::jsonb
                          ELSE '{"i":0,"one":{}}'::jsonb END,
              CASE status WHEN 'COMPLETED' THEN '{"i":0,"one":{},"two":{},"three":{}}'::jsonb END,
              CASE status WHEN 'FAILED' THEN 'boom' END,
              CASE status WHEN 'COMPLETED' THEN 2 ELSE 1 END,
              CASE status WHEN 'COMPLETED' THEN 3 ELSE 1 END,
              created_at,
              created_at + interval '30 ms',
              CASE WHEN status IN ('COMPLETED', 'FAILED', 'CANCELLED') THEN created_at + interval '30 ms' END
       FROM gen ORDER BY n`,
    );
    await timed(
      'steps',
      `INSERT INTO step_runs (id, run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                              output, error, due_at, started_at, completed_at, created_at)
       SELECT CASE k WHEN 0 THEN s0 WHEN 1 THEN s1 ELSE s2 END, id, workspace_id, k,
              (ARRAY['one', 'two', 'three'])[k + 1], 'task',
              CASE WHEN k = 0 OR status = 'COMPLETED' THEN 'COMPLETED' ELSE status END,
              CASE WHEN k = 1 AND status = 'FAILED' THEN 3 ELSE 1 END,
              CASE WHEN k = 0 OR status = 'COMPLETED' THEN '{}'::jsonb END,
              CASE WHEN k = 1 AND status = 'FAILED' THEN 'boom' END,
              CASE WHEN k = 1 AND status = 'WAITING' THEN now() + interval '30 days' END,
              created_at + k * interval '10 ms',
              CASE WHEN k = 0 OR status <> 'WAITING' THEN created_at + (k + 1) * interval '10 ms' END,
              created_at + k * interval '10 ms'
       FROM gen CROSS JOIN generate_series(0, 2) k
       WHERE k = 0 OR (k = 1) OR (k = 2 AND status = 'COMPLETED')
       ORDER BY n, k`,
    );
    await timed(
      'events',
      `INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload, created_at)
       SELECT g.id, g.workspace_id, e.step_run_id, e.event_type, e.payload, g.created_at + e.at
       FROM gen g
       CROSS JOIN LATERAL (VALUES
         (0, NULL::uuid, 'WORKFLOW_STARTED', '{}'::jsonb, interval '0 ms', true),
         (1, g.s0, 'STEP_STARTED', '{"stepName":"one","stepType":"task","attempt":1}'::jsonb, interval '0 ms', true),
         (2, g.s0, 'STEP_COMPLETED', '{"stepName":"one","durationMs":1}'::jsonb, interval '10 ms', true),
         (3, g.s1, 'STEP_STARTED', '{"stepName":"two","stepType":"task","attempt":1}'::jsonb, interval '10 ms', true),
         (4, g.s1, 'STEP_COMPLETED', '{"stepName":"two","durationMs":1}'::jsonb, interval '20 ms', g.status = 'COMPLETED'),
         (5, g.s1, 'STEP_FAILED', '{"stepName":"two","error":"boom","attempt":3}'::jsonb, interval '20 ms', g.status = 'FAILED'),
         (6, g.s2, 'STEP_STARTED', '{"stepName":"three","stepType":"task","attempt":1}'::jsonb, interval '20 ms', g.status = 'COMPLETED'),
         (7, g.s2, 'STEP_COMPLETED', '{"stepName":"three","durationMs":1}'::jsonb, interval '30 ms', g.status = 'COMPLETED'),
         (8, NULL::uuid, 'WORKFLOW_COMPLETED', '{}'::jsonb, interval '30 ms', g.status = 'COMPLETED'),
         (9, NULL::uuid, 'WORKFLOW_FAILED', '{"error":"boom","stepName":"two"}'::jsonb, interval '30 ms', g.status = 'FAILED'),
         (10, NULL::uuid, 'WORKFLOW_CANCELLED', '{}'::jsonb, interval '30 ms', g.status = 'CANCELLED')
       ) AS e(ord, step_run_id, event_type, payload, at, keep)
       WHERE e.keep
       ORDER BY g.n, e.ord`,
    );
    // session_replication_role = replica skips every trigger, the run count's too (migration
    // RunCounts): add the parts it would have added, so the list's total is right.
    if (replica && hasRunCounts) {
      await db.query(
        'INSERT INTO run_counts (workspace_id, runs) SELECT workspace_id, count(*) FROM gen GROUP BY 1',
      );
    }
    await timed('commit', 'COMMIT');
    log(
      `scale: inserted runs ${lo}-${hi} of ${total} (s so far: ` +
        Object.entries(spent)
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
          .join(', ') +
        ')',
    );
  }
  if (replica) await db.query(`SET session_replication_role = DEFAULT`);
  const loaded = nowMs();
  for (const ix of indexes) await db.query(ix.def);
  log(`scale: rebuilt ${indexes.length} indexes in ${((nowMs() - loaded) / 1000).toFixed(0)} s`);
  const inserted = nowMs();
  for (const table of ['workflow_runs', 'step_runs', 'run_events']) {
    // A VACUUM can leave pages not all-visible when a snapshot older than the load was open (the
    // service polls meanwhile); autovacuum would come back to them, so do the same until the
    // visibility map covers the table, or three passes.
    for (let pass = 1; pass <= 3; pass++) {
      await db.query(`VACUUM (ANALYZE) ${table}`);
      const vm = await db.query<{ pages: number; visible: number }>(
        `SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = $1`,
        [table],
      );
      const { pages, visible } = vm.rows[0];
      if (visible >= pages * 0.99) break;
      log(`scale: ${table} ${visible} of ${pages} pages all-visible after VACUUM pass ${pass}`);
    }
  }
  // The load's dirty pages are written out now rather than by a checkpoint in the middle of the
  // measurements (which would also make every first write to a page log a full page image).
  await db
    .query('CHECKPOINT')
    .catch((err: Error) => log(`scale: CHECKPOINT failed: ${err.message}`));
  const counts = (
    await db.query<{ runs: string; steps: string; events: string }>(
      `SELECT (SELECT count(*) FROM workflow_runs) AS runs, (SELECT count(*) FROM step_runs) AS steps,
              (SELECT count(*) FROM run_events) AS events`,
    )
  ).rows[0];
  log(
    `scale: ${counts.runs} runs, ${counts.steps} step runs, ${counts.events} events; insert ` +
      `${((inserted - started) / 1000).toFixed(0)} s, vacuum analyze ${((nowMs() - inserted) / 1000).toFixed(0)} s`,
  );
  return {
    runs: Number(counts.runs),
    stepRuns: Number(counts.steps),
    events: Number(counts.events),
    seconds: (nowMs() - started) / 1000,
  };
}

export interface QueryLatency {
  name: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** `samples` sequential requests (after 5 unmeasured), each path chosen by `pathOf(i)`. */
async function timeRequests(
  svc: Service,
  apiKey: string,
  name: string,
  samples: number,
  pathOf: (i: number) => string,
): Promise<QueryLatency> {
  const times: number[] = [];
  for (let i = -5; i < samples; i++) {
    const p = pathOf(Math.abs(i));
    const t0 = nowMs();
    const res = await request(svc.baseUrl, 'GET', p, undefined, apiKey);
    const dt = nowMs() - t0;
    if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}`);
    if (i >= 0) times.push(dt);
  }
  return {
    name,
    samples,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: Math.max(...times),
  };
}

export async function scaleQueries(
  svc: Service,
  db: Client,
  workspaceId: string,
  apiKey: string,
  samples: number,
  filterStatus: string,
): Promise<QueryLatency[]> {
  const ids = (
    await db.query<{ id: string }>(
      `SELECT id FROM workflow_runs TABLESAMPLE SYSTEM (1) WHERE workspace_id = $1 LIMIT $2`,
      [workspaceId, samples + 5],
    )
  ).rows.map((r) => r.id);
  if (ids.length === 0) throw new Error('no run to sample');
  const pick = (i: number) => ids[i % ids.length];
  // Sanity: a run read over HTTP exists.
  await call(svc.baseUrl, 'GET', `/v1/workflow-runs/${pick(0)}`, undefined, apiKey);
  const list = '/v1/workflow-runs?pageSize=20';
  return [
    await timeRequests(svc, apiKey, 'list page 1', samples, () => `${list}&page=1`),
    await timeRequests(svc, apiKey, 'list page 500', samples, () => `${list}&page=500`),
    await timeRequests(
      svc,
      apiKey,
      `list page 1, status=${filterStatus}`,
      samples,
      () => `${list}&page=1&status=${filterStatus}`,
    ),
    await timeRequests(
      svc,
      apiKey,
      `list page 500, status=${filterStatus}`,
      samples,
      () => `${list}&page=500&status=${filterStatus}`,
    ),
    await timeRequests(svc, apiKey, 'GET one run', samples, (i) => `/v1/workflow-runs/${pick(i)}`),
    await timeRequests(
      svc,
      apiKey,
      'GET its events',
      samples,
      (i) => `/v1/workflow-runs/${pick(i)}/events`,
    ),
  ];
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements the service runs for those requests (the text of
 * src/runs/runs.repository.ts, with the parameters of workspace `workspaceId`).
 */
export async function explainPlans(
  db: Client,
  workspaceId: string,
  filterStatus: string,
): Promise<Record<string, string>> {
  const runId = (
    await db.query<{ id: string }>(
      `SELECT id FROM workflow_runs TABLESAMPLE SYSTEM (1) WHERE workspace_id = $1 LIMIT 1`,
      [workspaceId],
    )
  ).rows[0].id;
  const cols = `id, workspace_id, definition_id, status, input, output, error, idempotency_key,
  current_step_index, created_at, updated_at`;
  // The page query as RunsRepository.list sends it: a deferred join over the page's ids.
  const page = (where: string, offset: number) =>
    `SELECT ${cols
      .split(',')
      .map((c) => `r.${c.trim()}`)
      .join(', ')} FROM workflow_runs r
     JOIN (SELECT id FROM workflow_runs WHERE ${where}
           ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET ${offset}) page ON page.id = r.id
     ORDER BY r.created_at DESC, r.id DESC`;
  const statements: Record<string, [string, unknown[]]> = {
    'list page 1': [page('workspace_id = $1', 0), [workspaceId]],
    'list page 500': [page('workspace_id = $1', 9980), [workspaceId]],
    'list count': [
      `SELECT count(*) AS total FROM workflow_runs WHERE workspace_id = $1`,
      [workspaceId],
    ],
    [`list page 1, status=${filterStatus}`]: [
      page('workspace_id = $1 AND status = $2', 0),
      [workspaceId, filterStatus],
    ],
    [`list page 500, status=${filterStatus}`]: [
      page('workspace_id = $1 AND status = $2', 9980),
      [workspaceId, filterStatus],
    ],
    [`list count, status=${filterStatus}`]: [
      `SELECT count(*) AS total FROM workflow_runs WHERE workspace_id = $1 AND status = $2`,
      [workspaceId, filterStatus],
    ],
    'GET one run': [
      `SELECT ${cols} FROM workflow_runs WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, runId],
    ],
    'GET its events (page)': [
      `SELECT id, run_id, step_run_id, event_type, payload, created_at FROM run_events
       WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq LIMIT 20 OFFSET 0`,
      [runId, workspaceId],
    ],
    'GET its events (count)': [
      `SELECT count(*) AS total FROM run_events WHERE run_id = $1 AND workspace_id = $2`,
      [runId, workspaceId],
    ],
    'executor claim (CLAIM_STEPS candidates, 32 slots free)': [
      `WITH RECURSIVE queued AS (
         (SELECT s.workspace_id FROM step_runs s
          WHERE s.status IN ('PENDING', 'WAITING') AND s.due_at IS NOT NULL
          ORDER BY s.workspace_id LIMIT 1)
         UNION ALL
         SELECT (SELECT s.workspace_id FROM step_runs s
                 WHERE s.status IN ('PENDING', 'WAITING') AND s.due_at IS NOT NULL
                   AND s.workspace_id > q.workspace_id
                 ORDER BY s.workspace_id LIMIT 1)
         FROM queued q WHERE q.workspace_id IS NOT NULL
       )
       SELECT c.id FROM queued q CROSS JOIN LATERAL (
         SELECT s.id FROM step_runs s
         WHERE s.workspace_id = q.workspace_id AND s.status IN ('PENDING', 'WAITING')
           AND s.due_at IS NOT NULL AND s.due_at <= now()
         ORDER BY s.due_at LIMIT 32
       ) c`,
      [],
    ],
  };
  const plans: Record<string, string> = {};
  for (const [name, [sql, params]] of Object.entries(statements)) {
    const res = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${sql}`,
      params,
    );
    plans[name] = res.rows.map((r) => r['QUERY PLAN']).join('\n');
  }
  return plans;
}
