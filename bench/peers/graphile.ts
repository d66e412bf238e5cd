/**
 * graphile-worker peer: a run is a chain of three jobs, each job enqueuing the next. Settings are the
 * ones of graphile-worker's performance page (concurrentJobs 24, maxPoolSize 25); the batched preset
 * adds its batching options (localQueue size 500, completeJobBatchDelay 0, failJobBatchDelay 0).
 * (a) chains started with addJob while the worker runs, `inFlight` pending at once;
 * (b) all first jobs added, then the worker started.
 */
import { Logger, makeWorkerUtils, run, runMigrations, type Task } from 'graphile-worker';
import { Client } from 'pg';
import { walPosition } from '../lib/db';
import { nowMs, percentile, pooled, sleep, waitFor } from '../lib/util';
import { parseJob, printResult } from './protocol';

interface Payload {
  i: number;
  t: number;
}

async function main(): Promise<void> {
  const job = parseJob();
  const preset = {
    worker: {
      connectionString: job.url,
      concurrentJobs: 24,
      maxPoolSize: 25,
      ...(job.batched
        ? { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 }
        : {}),
    },
  };
  const quiet = { logger: new Logger(() => () => undefined) };
  await runMigrations({ preset, ...quiet });

  let firstStart = Infinity;
  const finished = new Map<number, number>();
  const created = new Map<number, number>();
  const taskList: Record<string, Task> = {
    one: async (payload, helpers) => {
      firstStart = Math.min(firstStart, nowMs());
      await helpers.addJob('two', payload);
    },
    two: async (payload, helpers) => {
      await helpers.addJob('three', payload);
    },
    three: async (payload) => {
      const p = payload as Payload;
      if (p.i >= 0) finished.set(p.i, nowMs());
    },
  };
  const db = new Client({ connectionString: job.url });
  await db.connect();
  const drained = async (): Promise<boolean> => {
    const res = await db.query<{ n: string }>('SELECT count(*) AS n FROM graphile_worker.jobs');
    return Number(res.rows[0].n) === 0;
  };
  const utils = await makeWorkerUtils({ preset, ...quiet });
  const add = (i: number) => {
    const t = nowMs();
    created.set(i, t);
    return utils.addJob('one', { i, t });
  };

  let start: number;
  let runner;
  let walBefore = NaN;
  if (job.mode === 'a') {
    runner = await run({ preset, taskList, noHandleSignals: true, ...quiet });
    await pooled(job.warmup, job.inFlight, async (i) => void (await add(-1 - i)));
    await waitFor('graphile warm-up', drained, 120_000);
    await sleep(50);
    walBefore = await walPosition(db);
    start = nowMs();
    await pooled(job.runs, job.inFlight, async (i) => void (await add(i)));
  } else {
    await pooled(job.runs, job.inFlight, async (i) => void (await add(i)));
    runner = await run({ preset, taskList, noHandleSignals: true, ...quiet });
    start = NaN;
  }
  await waitFor(
    `${job.runs} graphile chains`,
    async () => finished.size === job.runs && (await drained()),
    600_000,
  );
  const end = nowMs();
  // (a): the WAL of adding and running the chains (the polls of `drained` write none).
  const walBytes = (await walPosition(db)) - walBefore;
  if (job.mode === 'b') start = firstStart;
  const lat = [...finished.entries()].map(
    ([i, t]) => t - (job.mode === 'a' ? created.get(i)! : start),
  );
  const seconds = (end - start) / 1000;
  await runner.stop();
  await utils.release();
  await db.end();
  printResult({
    runs: job.runs,
    seconds,
    runsPerSec: job.runs / seconds,
    stepsPerSec: (job.runs * 3) / seconds,
    p50Ms: percentile(lat, 50),
    p99Ms: percentile(lat, 99),
    ...(job.mode === 'a' ? { walBytesPerStep: walBytes / (job.runs * 3) } : {}),
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
