import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { backendCpu, backendCpuSince, walPosition } from '../lib/db';
import { call, startService, type Service } from '../lib/service';
import type { Throughput } from '../lib/types';
import { cpuMs, nowMs, percentile, pooled, waitFor } from '../lib/util';

export interface Target {
  databaseUrl: string;
  apiKey: string;
  definitionId: string;
  steps: number;
}

/**
 * Creates `count` runs over HTTP with `inFlight` requests pending at once; returns their ids. `keyed`:
 * every POST carries an Idempotency-Key of its own (a new UUID), as a careful client sends it.
 */
export async function createRuns(
  svc: Service,
  t: Target,
  count: number,
  inFlight: number,
  keyed = false,
): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  await pooled(count, inFlight, async (i) => {
    const run = await call<{ id: string }>(
      svc.baseUrl,
      'POST',
      '/v1/workflow-runs',
      { definitionId: t.definitionId, input: { i } },
      t.apiKey,
      keyed ? { 'Idempotency-Key': randomUUID() } : undefined,
    );
    ids[i] = run.id;
  });
  return ids;
}

/** Waits until every run in `ids` is COMPLETED (fails fast on FAILED or CANCELLED). */
export async function waitCompleted(
  db: Client,
  ids: string[],
  timeoutMs: number,
  everyMs = 25,
): Promise<void> {
  await waitFor(
    `${ids.length} runs to complete`,
    async () => {
      const res = await db.query<{ done: string; bad: string }>(
        `SELECT count(*) FILTER (WHERE status = 'COMPLETED') AS done,
                count(*) FILTER (WHERE status IN ('FAILED', 'CANCELLED')) AS bad
         FROM workflow_runs WHERE id = ANY ($1::uuid[])`,
        [ids],
      );
      if (Number(res.rows[0].bad) > 0) throw new Error(`${res.rows[0].bad} runs failed`);
      return Number(res.rows[0].done) === ids.length;
    },
    timeoutMs,
    everyMs,
  );
}

interface Timing {
  created: number;
  first_started: number;
  finished: number;
}

async function timings(db: Client, ids: string[]): Promise<Timing[]> {
  const res = await db.query<Timing>(
    `SELECT extract(epoch FROM r.created_at) * 1000 AS created,
            extract(epoch FROM (SELECT min(s.started_at) FROM step_runs s WHERE s.run_id = r.id)) * 1000
              AS first_started,
            extract(epoch FROM r.finished_at) * 1000 AS finished
     FROM workflow_runs r WHERE r.id = ANY ($1::uuid[])`,
    [ids],
  );
  return res.rows.map((r) => ({
    created: Number(r.created),
    first_started: Number(r.first_started),
    finished: Number(r.finished),
  }));
}

function summarise(
  count: number,
  steps: number,
  startMs: number,
  lat: number[],
  endMs: number,
): Throughput {
  const seconds = (endMs - startMs) / 1000;
  return {
    runs: count,
    seconds,
    runsPerSec: count / seconds,
    stepsPerSec: (count * steps) / seconds,
    p50Ms: percentile(lat, 50),
    p99Ms: percentile(lat, 99),
  };
}

/**
 * 1(a) end to end: the service runs with its executor; runs are created over HTTP with `inFlight`
 * requests pending (each with an Idempotency-Key when `keyed`), timed from the first POST until the
 * last run is COMPLETED.
 */
export async function endToEnd(
  svc: Service,
  db: Client,
  t: Target,
  count: number,
  inFlight: number,
  keyed = false,
): Promise<Throughput> {
  const walBefore = await walPosition(db);
  const start = nowMs();
  const ids = await createRuns(svc, t, count, inFlight, keyed);
  await waitCompleted(db, ids, 300_000);
  const walBytes = (await walPosition(db)) - walBefore;
  const rows = await timings(db, ids);
  const end = Math.max(...rows.map((r) => r.finished));
  return {
    ...summarise(
      count,
      t.steps,
      start,
      rows.map((r) => r.finished - r.created),
      end,
    ),
    walBytesPerStep: walBytes / (count * t.steps),
  };
}

/**
 * 1(b) execution only: the runs are created through `api` (a service with EXECUTOR_ENABLED=false),
 * then a second service process with its executor is started; timed from the first step's start to
 * the last run's completion (the executor's boot is not counted).
 */
export async function executionOnly(
  api: Service,
  db: Client,
  t: Target,
  count: number,
  inFlight: number,
  executorEnv: Record<string, string> = {},
  /** Called with the queued runs before the executor starts (scenario 9 opens streams on them). */
  beforeExecutor?: (ids: string[]) => Promise<void>,
): Promise<Throughput> {
  const ids = await createRuns(api, t, count, inFlight);
  await beforeExecutor?.(ids);
  const executor = await startService(t.databaseUrl, { ...executorEnv, EXECUTOR_ENABLED: 'true' });
  const backendsBefore = await backendCpu(db);
  const serviceBefore = cpuMs(executor.pid);
  const walBefore = await walPosition(db);
  let serviceMs: number;
  let postgresMs: number;
  let walBytes: number;
  try {
    await waitCompleted(db, ids, 300_000);
    serviceMs = cpuMs(executor.pid) - serviceBefore;
    walBytes = (await walPosition(db)) - walBefore;
    postgresMs = await backendCpuSince(db, backendsBefore);
  } finally {
    await executor.stop();
  }
  const rows = await timings(db, ids);
  const start = Math.min(...rows.map((r) => r.first_started));
  const end = Math.max(...rows.map((r) => r.finished));
  return {
    ...summarise(
      count,
      t.steps,
      start,
      rows.map((r) => r.finished - start),
      end,
    ),
    cpuMsPerStep: {
      service: serviceMs / (count * t.steps),
      postgres: postgresMs / (count * t.steps),
    },
    walBytesPerStep: walBytes / (count * t.steps),
  };
}
