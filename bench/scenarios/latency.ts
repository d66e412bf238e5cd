import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { backendCpu, backendCpuSince } from '../lib/db';
import { call, request, type Service } from '../lib/service';
import { cpuMs, freePort, log, median, nowMs, percentile, waitFor } from '../lib/util';
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
  /** Where the machine's CPU went meanwhile. */
  usage?: Usage;
  /**
   * Measured in rounds beside the floor (paired): `GET /live`'s requests/s right before each round,
   * and each round's ratio to it; the result is the round with the median ratio.
   */
  pairs?: Array<{ floor: number; ratio: number }>;
  /** Measured in interleaved rounds (the open loop): each round's p99; the result is the median's. */
  p99Rounds?: number[];
}

/**
 * Where the CPU went during a measurement, in cores (CPU seconds per second; Linux /proc): the
 * service's process, the PostgreSQL backends of its database, the bench process (the load generator,
 * autocannon or the open loop, runs in it), and the whole machine (its busy share of `cores`); and
 * the database's transactions per request (pg_stat_database, which backends report within about a
 * second: approximate), which shows how many requests shared each statement.
 */
export interface Usage {
  service: number;
  postgres: number;
  loadGenerator: number;
  machine: number;
  cores: number;
  transactionsPerRequest: number;
}

/** The machine's busy and total CPU time so far (/proc/stat, clock ticks; idle and iowait are idle). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1);
  const ticks = fields.slice(0, 8).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3] - ticks[4], total };
}

/** Runs `measure` and records its Usage (`requests`: what it answered). */
async function withUsage(
  svc: Service,
  db: Client,
  measure: () => Promise<CannonResult>,
): Promise<CannonResult> {
  const transactions = async (): Promise<number> => {
    const { rows } = await db.query<{ n: string }>(
      `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(rows[0].n);
  };
  const xactBefore = await transactions();
  const pgBefore = await backendCpu(db);
  const serviceBefore = cpuMs(svc.pid);
  const selfBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const start = performance.now();
  const result = await measure();
  const seconds = (performance.now() - start) / 1000;
  const machineAfter = machineTicks();
  const self = process.cpuUsage(selfBefore);
  const serviceMs = cpuMs(svc.pid) - serviceBefore;
  const postgresMs = await backendCpuSince(db, pgBefore);
  // Reported at a backend's next idle moment (at most once a second): wait for the last of them.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const xacts = (await transactions()) - xactBefore - 3; // the bench's own reads of the counters
  const cores = os.availableParallelism();
  return {
    ...result,
    usage: {
      service: serviceMs / 1000 / seconds,
      postgres: postgresMs / 1000 / seconds,
      loadGenerator: (self.user + self.system) / 1e6 / seconds,
      machine:
        (cores * (machineAfter.busy - machineBefore.busy)) /
        Math.max(1, machineAfter.total - machineBefore.total),
      cores,
      transactionsPerRequest: Math.max(0, xacts) / Math.max(1, result.requests),
    },
  };
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
  // First in, first out: every connection takes its turn, so none sits idle for the service's
  // keep-alive timeout (5 s) to be closed just as a burst after a stall reaches for it, as Node's
  // default (last in, first out) allows. A full run on 2026-12-07 counted 3 errors in 41,000
  // requests there, unlogged then (they are now); none since.
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, scheduling: 'fifo' });
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
      req.on('error', (err) => {
        if (errors < 5) log(`${name}: ${err.message}`);
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
/** The database floor (peers/pg-floor.ts): one row by primary key over bare node:http and pg. */
export const PG_FLOOR_OPEN =
  'bare node:http + pg reading the same run row, at the rate offered to GET one run (open loop: the database floor)';
export const LIST = 'GET /v1/workflow-runs';
export const CREATE = 'POST /v1/workflow-runs';

/**
 * A floor of peers/ (`script`, given a free port and `args`) in its own process, started and stopped
 * around `use`.
 */
async function withFloor<T>(
  script: string,
  args: string[],
  use: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '../peers', script), `${port}`, ...args],
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
      `${script} to listen`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${script} exited:\n${out}`);
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

/** Rounds of each paired measurement in scenario 4 (`GET /live`, then the route). */
const PAIR_ROUNDS = 3;

/** Rounds of scenario 4's open loop (GET one run, the database floor, `GET /live`, in turn). */
const OPEN_ROUNDS = 3;

/** The round with the median p99 of `rounds`, with every round's p99 (`p99Rounds`). */
function medianP99(rounds: CannonResult[]): CannonResult {
  const p99s = rounds.map((r) => r.p99Ms);
  const middle = median(p99s);
  const chosen = rounds.find((r) => r.p99Ms === middle) ?? rounds[0];
  return { ...chosen, p99Rounds: p99s };
}

/** How long each half of a paired round lasts, given scenario 4's `--api-seconds`. */
export const pairedSeconds = (seconds: number): number => Math.max(1, Math.round(seconds / 2));

/**
 * `measure` in PAIR_ROUNDS rounds, each right after `GET /live` for as long (then `after`, e.g. a
 * drain): a route's share of the floor from the same minute, as the machine's speed drifts between
 * minutes (GET one run read 49% and 71% of a `GET /live` measured once at the start, on two runs of
 * one day). The result is the round with the median ratio, with every round's pair.
 */
async function besideFloor(
  svc: Service,
  db: Client,
  seconds: number,
  connections: number,
  measure: () => Promise<CannonResult>,
  after?: () => Promise<void>,
): Promise<CannonResult> {
  const rounds: Array<{ result: CannonResult; pair: { floor: number; ratio: number } }> = [];
  for (let i = 0; i < PAIR_ROUNDS; i++) {
    const floor = await cannon(FLOOR, `${svc.baseUrl}/live`, undefined, seconds, connections);
    const result = await withUsage(svc, db, measure);
    await after?.();
    const ratio = result.requestsPerSec / floor.requestsPerSec;
    rounds.push({ result, pair: { floor: floor.requestsPerSec, ratio } });
  }
  const middle = median(rounds.map((r) => r.pair.ratio));
  const chosen = rounds.find((r) => r.pair.ratio === middle) ?? rounds[0];
  return { ...chosen.result, pairs: rounds.map((r) => r.pair) };
}

/**
 * 4. API latency with autocannon at `connections` connections, the executor running the created
 * runs meanwhile, as in production: the floors first (the service's `GET /live`, which touches no
 * database, and a bare Nest app with one route, `seconds` each), then GET one run, the run list once
 * the workspace holds `listRuns` runs (inserted with SQL like scenario 6) and POST a run, each in
 * rounds beside `GET /live` (besideFloor, half of `seconds` each), and GET one run in an open loop at
 * half the rate it reached (latency as SLOs are written, not only at saturation) with `GET /live` at
 * the same rate and at half its own, and the database floor (peers/pg-floor.ts) at the same rate.
 * Each measurement records where the CPU went (Usage).
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
  const live = `${svc.baseUrl}/live`;
  const one = `${svc.baseUrl}/v1/workflow-runs/${ids[0]}`;
  await cannon(FLOOR, live, undefined, Math.min(seconds, 3), connections);
  await cannon(GET_ONE, one, t.apiKey, 1, connections);
  const usage = (measure: () => Promise<CannonResult>) => withUsage(svc, db, measure);
  const paired = pairedSeconds(seconds);
  const out: CannonResult[] = [];
  out.push(await usage(() => cannon(FLOOR, live, undefined, seconds, connections)));
  out.push(
    await withFloor('nest-floor.js', [], async (base) => {
      await cannon(NEST_FLOOR, `${base}/live`, undefined, Math.min(seconds, 3), connections);
      return cannon(NEST_FLOOR, `${base}/live`, undefined, seconds, connections);
    }),
  );
  const saturated = await besideFloor(svc, db, paired, connections, () =>
    cannon(GET_ONE, one, t.apiKey, paired, connections),
  );
  out.push(saturated);
  const half = Math.max(1, Math.round(saturated.requestsPerSec / 2));
  // At that rate, in OPEN_ROUNDS interleaved rounds: GET one run, the database floor (what answering
  // from PostgreSQL costs on this machine with nothing of ours) and `GET /live` (the machine and the
  // framework without a database). A 10 s window at 2,000 requests/s puts any stall of the shared
  // machine longer than 1% of it into the p99, so each is compared with the others of its minute.
  const rounds = await withFloor('pg-floor.js', [t.databaseUrl], async (base) => {
    const row = `${base}/runs/${ids[0]}`;
    await openLoop(PG_FLOOR_OPEN, row, undefined, Math.min(seconds, 3), connections, half);
    const getOne: CannonResult[] = [];
    const database: CannonResult[] = [];
    const framework: CannonResult[] = [];
    for (let i = 0; i < OPEN_ROUNDS; i++) {
      getOne.push(
        await usage(() => openLoop(GET_ONE_OPEN, one, t.apiKey, seconds, connections, half)),
      );
      database.push(await openLoop(PG_FLOOR_OPEN, row, undefined, seconds, connections, half));
      framework.push(
        await usage(() => openLoop(FLOOR_OPEN_SAME, live, undefined, seconds, connections, half)),
      );
    }
    return [getOne, database, framework];
  });
  out.push(...rounds.map(medianP99));
  // And the floor at half its own saturation (on 2 shared cores its p99 too is far from the target).
  const floorHalf = Math.max(1, Math.round(out[0].requestsPerSec / 2));
  out.push(
    await usage(() => openLoop(FLOOR_OPEN_HALF, live, undefined, seconds, connections, floorHalf)),
  );
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
  const list = `${svc.baseUrl}/v1/workflow-runs`;
  const listName = `${LIST} (${listRuns.toLocaleString('en-US')} runs in the workspace)`;
  out.push(
    await besideFloor(svc, db, paired, connections, () =>
      cannon(listName, list, t.apiKey, paired, connections),
    ),
  );
  // Each round lets the executor finish what the POSTs created before `GET /live` is measured again
  // (and before the service stops).
  const drained = () =>
    waitFor(
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
  const body = { definitionId: t.definitionId, input: {} };
  out.push(
    await besideFloor(
      svc,
      db,
      paired,
      connections,
      () => cannon(CREATE, list, t.apiKey, paired, connections, body),
      drained,
    ),
  );
  return out;
}
