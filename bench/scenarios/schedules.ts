import type { Client } from 'pg';
import { call } from '../lib/service';
import { log, percentile, pooled, sleep, waitFor } from '../lib/util';

/** Schedules due in the same second (issue 15: all start their runs within 5 s). */
export const SCHEDULES = 1000;
/** How far ahead the common fire second lies when the creation starts: room to create them all. */
const LEAD_MS = 30_000;

export interface SchedulesResult {
  schedules: number;
  /** Seconds the creation of every schedule over HTTP took. */
  createSeconds: number;
  /** The common fire time. */
  fireAt: string;
  /** Runs with a scheduleId afterwards (must be `schedules`: one per fire, none twice). */
  runs: number;
  /** From the fire time to each run's creation by the scheduler: p50, p99 and the last. */
  createdP50Ms: number;
  createdP99Ms: number;
  createdLastMs: number;
  /** From the fire time to each run's WORKFLOW_STARTED (the executor took it): the last. */
  startedLastMs: number;
  /** From the fire time to the last run's completion. */
  completedLastMs: number;
}

/**
 * Scenario 11: `SCHEDULES` schedules of a 1-step `noop` workflow created over HTTP, every one firing at
 * the same second (a 6-field cron naming that second, UTC), with the default scheduler settings (poll
 * 500 ms, batch 100) on one service process; then the time from that second until each run was
 * created, taken up by the executor (WORKFLOW_STARTED) and completed, read from the database.
 */
export async function schedulesDueTogether(
  baseUrl: string,
  apiKey: string,
  definitionId: string,
  sql: Client,
  inFlight: number,
): Promise<SchedulesResult> {
  const fire = new Date(Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000);
  const cron = [
    fire.getUTCSeconds(),
    fire.getUTCMinutes(),
    fire.getUTCHours(),
    fire.getUTCDate(),
    fire.getUTCMonth() + 1,
    '*',
  ].join(' ');
  const t0 = Date.now();
  await pooled(SCHEDULES, inFlight, async (i) => {
    await call(baseUrl, 'POST', '/v1/schedules', { definitionId, cron, name: `s${i}` }, apiKey);
  });
  const createSeconds = (Date.now() - t0) / 1000;
  log(
    `scenario 11: ${SCHEDULES} schedules created in ${createSeconds.toFixed(1)} s, due ${fire.toISOString()}`,
  );
  if (Date.now() >= fire.getTime()) {
    throw new Error(`creating the schedules took past their fire time (${createSeconds} s)`);
  }
  await sleep(fire.getTime() - Date.now());
  await waitFor(
    `${SCHEDULES} scheduled runs completed`,
    async () => {
      const res = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM workflow_runs WHERE schedule_id IS NOT NULL AND status = 'COMPLETED'`,
      );
      return res.rows[0].n >= SCHEDULES;
    },
    120_000,
    100,
  );
  const runs = await sql.query<{ created_ms: number; started_ms: number | null; done_ms: number }>(
    `SELECT extract(epoch FROM r.created_at) * 1000 - $1 AS created_ms,
            (SELECT extract(epoch FROM e.created_at) * 1000 - $1 FROM run_events e
             WHERE e.run_id = r.id AND e.event_type = 'WORKFLOW_STARTED' LIMIT 1) AS started_ms,
            extract(epoch FROM r.finished_at) * 1000 - $1 AS done_ms
     FROM workflow_runs r WHERE r.schedule_id IS NOT NULL`,
    [fire.getTime()],
  );
  const created = runs.rows.map((r) => Number(r.created_ms));
  const started = runs.rows.map((r) => Number(r.started_ms ?? NaN));
  const done = runs.rows.map((r) => Number(r.done_ms));
  return {
    schedules: SCHEDULES,
    createSeconds,
    fireAt: fire.toISOString(),
    runs: runs.rows.length,
    createdP50Ms: percentile(created, 50),
    createdP99Ms: percentile(created, 99),
    createdLastMs: Math.max(...created),
    startedLastMs: Math.max(...started),
    completedLastMs: Math.max(...done),
  };
}
