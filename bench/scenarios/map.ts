import type { Client } from 'pg';
import { call, startService, type Service } from '../lib/service';
import type { Throughput } from '../lib/types';
import { waitCompleted, type Target } from './throughput';

/** Scenario 10's workflow: one `map` step over `items`, 50 `noop` items at a time. */
export const MAP_STEPS = [
  {
    type: 'map',
    name: 'each',
    items: 'items',
    maxConcurrency: 50,
    step: { type: 'task', handler: 'noop' },
  },
];

export interface MapResult {
  items: number;
  /** One run mapping `items` noop items, execution only; stepsPerSec counts items. */
  map: Throughput;
  /** 1(b) (3-step noop runs, execution only) measured in the same scenario, the reference. */
  noop: Throughput;
  samples: { map: Throughput[]; noop: Throughput[] };
}

/**
 * One run of MAP_STEPS over `items` elements, created through `api` (executor paused), then an
 * executor process started; timed like 1(b), from the map step's start to the run's completion, and
 * counted in items (each item is one execution of the sub-step).
 */
export async function mapExecution(
  api: Service,
  db: Client,
  t: Target,
  items: number,
): Promise<Throughput> {
  const run = await call<{ id: string }>(
    api.baseUrl,
    'POST',
    '/v1/workflow-runs',
    { definitionId: t.definitionId, input: { items: Array.from({ length: items }, (_, i) => i) } },
    t.apiKey,
  );
  const executor = await startService(t.databaseUrl, { EXECUTOR_ENABLED: 'true' });
  try {
    await waitCompleted(db, [run.id], 300_000);
  } finally {
    await executor.stop();
  }
  const { rows } = await db.query<{ started: string; finished: string; done: string }>(
    `SELECT extract(epoch FROM (SELECT min(s.started_at) FROM step_runs s WHERE s.run_id = r.id))
              * 1000 AS started,
            extract(epoch FROM r.finished_at) * 1000 AS finished,
            (SELECT count(*) FROM map_items m WHERE m.run_id = r.id AND m.status = 'COMPLETED')
              AS done
     FROM workflow_runs r WHERE r.id = $1`,
    [run.id],
  );
  const { started, finished, done } = rows[0];
  if (Number(done) !== items) throw new Error(`map completed ${done} of ${items} items`);
  const ms = Number(finished) - Number(started);
  const seconds = ms / 1000;
  return {
    runs: 1,
    seconds,
    runsPerSec: 1 / seconds,
    stepsPerSec: items / seconds,
    p50Ms: ms,
    p99Ms: ms,
  };
}
