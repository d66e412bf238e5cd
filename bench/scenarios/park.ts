import { Client } from 'pg';
import { call, type Service } from '../lib/service';
import { nowMs, pooled, sleep, waitFor } from '../lib/util';
import { createRuns, waitCompleted, type Target } from './throughput';

export const PARK_STEPS = [
  { type: 'external_event', name: 'wait', signalType: 'go' },
  { type: 'task', name: 'after', handler: 'noop' },
];

export interface ParkResult {
  runs: number;
  /** After the warm-up. */
  rssBaselineMb: number;
  /** After `runs` runs that complete at once (the control); equal to rssBeforeMb. */
  rssAfterControlMb: number;
  /** After every parked run was resumed and completed. */
  rssDrainedMb: number;
  rssBeforeMb: number;
  rssParkedMb: number;
  rssGrowthMb: number;
  parkSeconds: number;
  drainSeconds: number;
  drainRunsPerSec: number;
  /** From the first resume request sent to the last one answered. */
  resumeSeconds: number;
  /** Runs not yet COMPLETED when the last resume was answered (the executor's backlog then). */
  unfinishedAfterResumes: number;
}

async function waitWaiting(db: Client, ids: string[]): Promise<void> {
  await waitFor(
    `${ids.length} runs to park`,
    async () => {
      const res = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM workflow_runs WHERE id = ANY ($1::uuid[]) AND status = 'WAITING'`,
        [ids],
      );
      return Number(res.rows[0].n) === ids.length;
    },
    600_000,
    100,
  );
}

async function resumeAll(svc: Service, t: Target, ids: string[], inFlight: number): Promise<void> {
  await pooled(ids.length, inFlight, async (i) => {
    await call(
      svc.baseUrl,
      'POST',
      `/v1/workflow-runs/${ids[i]}/resume`,
      { signalType: 'go', payload: {} },
      t.apiKey,
    );
  });
}

const MB = 1024 * 1024;

/**
 * The service's RSS once idle: the lowest of readings every 250 ms over `ms`. Right after a burst of
 * requests the heap still holds garbage that V8 collects when it gets round to it; the lowest idle
 * reading is what the process keeps.
 */
async function settledRss(svc: Service, ms: number): Promise<number> {
  let lowest = svc.rss();
  for (let waited = 0; waited < ms; waited += 250) {
    await sleep(250);
    lowest = Math.min(lowest, svc.rss());
  }
  return lowest;
}

/**
 * 5. Waiting runs cost no memory: the service's RSS after a warm-up and a control of `count` runs that
 * complete at once, and again after `count` runs are parked at an external_event step (each reading
 * the lowest over `settleMs` of idle); then every run is resumed over HTTP and the drain rate measured
 * from the first resume to the last completion.
 */
export async function parkAndDrain(
  svc: Service,
  db: Client,
  t: Target,
  count: number,
  inFlight: number,
  controlDefinitionId: string,
  settleMs: number,
): Promise<ParkResult> {
  const warm = await createRuns(svc, t, Math.min(200, Math.ceil(count / 5)), inFlight);
  await waitWaiting(db, warm);
  await resumeAll(svc, t, warm, inFlight);
  await waitCompleted(db, warm, 120_000, 50);
  const baseline = await settledRss(svc, settleMs);
  // Control: as many requests and runs, but runs that complete at once. The heap grows with request
  // churn alone; parking is measured from this point, so that it counts only what waiting runs hold.
  const control = await createRuns(
    svc,
    { ...t, definitionId: controlDefinitionId },
    count,
    inFlight,
  );
  await waitCompleted(db, control, 600_000, 100);
  const before = await settledRss(svc, settleMs);

  const parkStart = nowMs();
  const ids = await createRuns(svc, t, count, inFlight);
  await waitWaiting(db, ids);
  const parkSeconds = (nowMs() - parkStart) / 1000;
  const parked = await settledRss(svc, settleMs);

  const start = nowMs();
  await resumeAll(svc, t, ids, inFlight);
  const resumeSeconds = (nowMs() - start) / 1000;
  const left = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM workflow_runs WHERE id = ANY ($1::uuid[]) AND status <> 'COMPLETED'`,
    [ids],
  );
  await waitCompleted(db, ids, 600_000, 50);
  const drained = await settledRss(svc, settleMs);
  const res = await db.query<{ end: string }>(
    `SELECT extract(epoch FROM max(finished_at)) * 1000 AS end FROM workflow_runs WHERE id = ANY ($1::uuid[])`,
    [ids],
  );
  const drainSeconds = (Number(res.rows[0].end) - start) / 1000;
  return {
    runs: count,
    rssBaselineMb: baseline / MB,
    rssAfterControlMb: before / MB,
    rssDrainedMb: drained / MB,
    rssBeforeMb: before / MB,
    rssParkedMb: parked / MB,
    rssGrowthMb: (parked - before) / MB,
    parkSeconds,
    drainSeconds,
    drainRunsPerSec: count / drainSeconds,
    resumeSeconds,
    unfinishedAfterResumes: Number(left.rows[0].n),
  };
}
