import autocannon from 'autocannon';
import { Client } from 'pg';
import { call, type Service } from '../lib/service';
import { nowMs, percentile, waitFor } from '../lib/util';
import { createRuns, waitCompleted, type Target } from './throughput';

export interface DispatchResult {
  runs: number;
  toStartP50Ms: number;
  toStartP99Ms: number;
  toCompletedP50Ms: number;
  toCompletedP99Ms: number;
}

interface RunEvent {
  eventType: string;
  createdAt: string;
}

/**
 * 3. Dispatch latency at idle: `count` sequential 1-step runs. For each, from the moment the POST's
 * answer arrives to the STEP_STARTED event's time and to the WORKFLOW_COMPLETED event's time (both
 * read back with GET /v1/workflow-runs/:id/events). The next run is created once this one is done.
 */
export async function dispatchLatency(
  svc: Service,
  db: Client,
  t: Target,
  count: number,
): Promise<DispatchResult> {
  const toStart: number[] = [];
  const toCompleted: number[] = [];
  for (let i = 0; i < count; i++) {
    const run = await call<{ id: string }>(
      svc.baseUrl,
      'POST',
      '/v1/workflow-runs',
      { definitionId: t.definitionId, input: { i } },
      t.apiKey,
    );
    const answered = nowMs();
    await waitCompleted(db, [run.id], 30_000, 2);
    const events = await call<RunEvent[]>(
      svc.baseUrl,
      'GET',
      `/v1/workflow-runs/${run.id}/events?pageSize=100`,
      undefined,
      t.apiKey,
    );
    const at = (type: string): number => {
      const e = events.find((x) => x.eventType === type);
      if (!e) throw new Error(`run ${run.id} has no ${type} event`);
      return Date.parse(e.createdAt);
    };
    toStart.push(at('STEP_STARTED') - answered);
    toCompleted.push(at('WORKFLOW_COMPLETED') - answered);
  }
  return {
    runs: count,
    toStartP50Ms: percentile(toStart, 50),
    toStartP99Ms: percentile(toStart, 99),
    toCompletedP50Ms: percentile(toCompleted, 50),
    toCompletedP99Ms: percentile(toCompleted, 99),
  };
}

export interface CannonResult {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  requests: number;
}

async function cannon(
  name: string,
  url: string,
  apiKey: string | undefined,
  seconds: number,
  connections: number,
  post?: unknown,
): Promise<CannonResult> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method: post ? 'POST' : 'GET',
    headers: {
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
      ...(post ? { 'content-type': 'application/json' } : {}),
    },
    body: post ? JSON.stringify(post) : undefined,
  });
  return {
    name,
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/**
 * 4. API latency with autocannon: GET one run, GET the run list, POST a run (the executor runs the
 * created runs meanwhile, as in production). `seconds` each at `connections` connections.
 */
/** The name of the no-database reference measurement of scenario 4. */
export const FLOOR = 'GET /live (no database: the floor)';

export async function apiLatency(
  svc: Service,
  db: Client,
  t: Target,
  seconds: number,
  connections: number,
): Promise<CannonResult[]> {
  // Something to read: a page of completed runs.
  const ids = await createRuns(svc, t, 50, 16);
  await waitCompleted(db, ids, 120_000);
  const out: CannonResult[] = [];
  out.push(
    await cannon(
      'GET /v1/workflow-runs/:id',
      `${svc.baseUrl}/v1/workflow-runs/${ids[0]}`,
      t.apiKey,
      seconds,
      connections,
    ),
  );
  out.push(
    await cannon(
      'GET /v1/workflow-runs',
      `${svc.baseUrl}/v1/workflow-runs`,
      t.apiKey,
      seconds,
      connections,
    ),
  );
  out.push(
    await cannon(
      'POST /v1/workflow-runs',
      `${svc.baseUrl}/v1/workflow-runs`,
      t.apiKey,
      seconds,
      connections,
      { definitionId: t.definitionId, input: {} },
    ),
  );
  // The floor under every endpoint: a public route that touches no database (framework, HTTP and
  // the load generator on the same two cores). Reported for context, without a target.
  out.push(await cannon(FLOOR, `${svc.baseUrl}/live`, undefined, seconds, connections));
  // Let the executor finish what the POSTs created before the service stops.
  await waitFor(
    'the POSTed runs to finish',
    async () => {
      const res = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM workflow_runs WHERE status IN ('PENDING', 'RUNNING')`,
      );
      return Number(res.rows[0].n) === 0;
    },
    300_000,
    200,
  );
  return out;
}
