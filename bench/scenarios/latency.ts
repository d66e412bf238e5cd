import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import { call, request, type Service } from '../lib/service';
import { freePort, nowMs, percentile, waitFor } from '../lib/util';
import { insertRuns } from './scale';
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
  /** Open loop only: the rate offered (requests/s, all connections together). */
  offeredRate?: number;
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
 * GET `url` at a fixed offered rate for `seconds`, whatever the answers take (open loop, as SLOs are
 * written): request i is due at start + i / rate and is sent then, over at most `connections`
 * keep-alive connections (a request finding them all busy waits for one). Each latency is measured
 * from the moment the request was due, not from when it could be sent, so a stall is counted in full
 * by every request it delays (no coordinated omission).
 *
 * Not autocannon's `overallRate`: that gives each connection a quota per second, which it sends back
 * to back at the start of each second (a burst at saturation, then silence), so its percentiles are
 * those of a saturated service for part of every second.
 */
async function openLoop(
  name: string,
  url: string,
  apiKey: string | undefined,
  seconds: number,
  connections: number,
  rate: number,
): Promise<CannonResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  const send = (due: number): Promise<void> =>
    new Promise((resolve) => {
      const req = http.get(
        {
          agent,
          hostname: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          headers: apiKey ? { 'x-api-key': apiKey } : {},
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
              non2xx++;
            }
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  let sent = 0;
  await new Promise<void>((done) => {
    const tick = (): void => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        pending.push(send(start + sent * interval));
        sent++;
      }
      if (sent < total) setTimeout(tick, 1);
      else done();
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return {
    name,
    requestsPerSec: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx,
    errors,
    requests: latencies.length,
    offeredRate: rate,
  };
}

/** The names of scenario 4's measurements (the table's targets refer to them). */
export const FLOOR = 'GET /live (no database: the floor)';
export const NEST_FLOOR = 'bare Nest app, one GET route (the framework floor)';
export const GET_ONE = 'GET /v1/workflow-runs/:id';
export const GET_ONE_OPEN = 'GET /v1/workflow-runs/:id at half its saturation rate (open loop)';
/** The floor in the open loop: GET /live at the same offered rate, and at half its own saturation. */
export const FLOOR_OPEN_SAME = 'GET /live at the rate offered to GET one run (open loop)';
export const FLOOR_OPEN_HALF = 'GET /live at half its own saturation rate (open loop)';
export const LIST = 'GET /v1/workflow-runs';
export const CREATE = 'POST /v1/workflow-runs';

/** A bare Nest app (peers/nest-floor.ts) in its own process, started and stopped around `use`. */
async function withNestFloor<T>(use: (baseUrl: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '../peers/nest-floor.js'), `${port}`],
    {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    await waitFor(
      'the bare Nest app to listen',
      async () => {
        if (child.exitCode !== null) throw new Error(`the bare Nest app exited:\n${out}`);
        return out.includes('LISTENING');
      },
      30_000,
      50,
    );
    return await use(`http://127.0.0.1:${port}`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * 4. API latency with autocannon, `seconds` each at `connections` connections, the executor running
 * the created runs meanwhile, as in production: the floors first (the service's `GET /live`, which
 * touches no database, and a bare Nest app with one route), then GET one run at saturation and in
 * an open loop at half the rate it reached (latency as SLOs are written, not only at saturation),
 * the run list once the workspace holds `listRuns` runs (inserted with SQL like scenario 6), and
 * POST a run.
 */
export async function apiLatency(
  svc: Service,
  db: Client,
  t: Target,
  seconds: number,
  connections: number,
  listRuns: number,
): Promise<CannonResult[]> {
  // Something to read: a page of completed runs.
  const ids = await createRuns(svc, t, 50, 16);
  await waitCompleted(db, ids, 120_000);
  // Warm-up, not reported: the first seconds of load on a fresh process run at a third of the
  // steady rate (JIT, lazily loaded modules), which would understate the floor.
  await cannon(FLOOR, `${svc.baseUrl}/live`, undefined, Math.min(seconds, 3), connections);
  await cannon(GET_ONE, `${svc.baseUrl}/v1/workflow-runs/${ids[0]}`, t.apiKey, 1, connections);
  const out: CannonResult[] = [];
  out.push(await cannon(FLOOR, `${svc.baseUrl}/live`, undefined, seconds, connections));
  out.push(
    await withNestFloor(async (base) => {
      await cannon(NEST_FLOOR, `${base}/live`, undefined, Math.min(seconds, 3), connections);
      return cannon(NEST_FLOOR, `${base}/live`, undefined, seconds, connections);
    }),
  );
  const one = `${svc.baseUrl}/v1/workflow-runs/${ids[0]}`;
  const saturated = await cannon(GET_ONE, one, t.apiKey, seconds, connections);
  out.push(saturated);
  const half = Math.max(1, Math.round(saturated.requestsPerSec / 2));
  out.push(await openLoop(GET_ONE_OPEN, one, t.apiKey, seconds, connections, half));
  // What the machine itself gives at a fixed rate: the floor at the same rate, and at half its own
  // saturation (where, on 2 shared cores, its p99 is far from GET one run's target too).
  const live = `${svc.baseUrl}/live`;
  out.push(await openLoop(FLOOR_OPEN_SAME, live, undefined, seconds, connections, half));
  const floorHalf = Math.max(1, Math.round(out[0].requestsPerSec / 2));
  out.push(await openLoop(FLOOR_OPEN_HALF, live, undefined, seconds, connections, floorHalf));
  const { rows } = await db.query<{ workspace_id: string }>(
    'SELECT workspace_id FROM workflow_definitions WHERE id = $1',
    [t.definitionId],
  );
  const loader = new Client({ connectionString: t.databaseUrl });
  await loader.connect();
  try {
    await insertRuns(loader, [rows[0].workspace_id], [t.definitionId], listRuns);
  } finally {
    await loader.end();
  }
  // The list's total must be the runs the workspace holds, loaded ones included.
  const listed = await request(svc.baseUrl, 'GET', '/v1/workflow-runs', undefined, t.apiKey);
  const counted = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workflow_runs WHERE workspace_id = $1',
    [rows[0].workspace_id],
  );
  if (listed.body.meta?.total !== counted.rows[0].n) {
    throw new Error(
      `the run list's total is ${listed.body.meta?.total}, the workspace holds ${counted.rows[0].n}`,
    );
  }
  out.push(
    await cannon(
      `${LIST} (${listRuns.toLocaleString('en-US')} runs in the workspace)`,
      `${svc.baseUrl}/v1/workflow-runs`,
      t.apiKey,
      seconds,
      connections,
    ),
  );
  out.push(
    await cannon(CREATE, `${svc.baseUrl}/v1/workflow-runs`, t.apiKey, seconds, connections, {
      definitionId: t.definitionId,
      input: {},
    }),
  );
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
