/**
 * DBOS Transact peer: a workflow of three steps that each return a small object, in this process.
 * (a) workflows started with DBOS.startWorkflow while DBOS runs, `inFlight` starts pending at once;
 * (b) workflows enqueued first (DBOSClient, DBOS not launched), then DBOS launched to drain the queue.
 * Completion is read from DBOS's own workflow_status table.
 */
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { Client } from 'pg';
import { walPosition } from '../lib/db';
import { nowMs, percentile, pooled, waitFor } from '../lib/util';
import { parseJob, printResult } from './protocol';

const APP = 'bench';
const QUEUE = 'bench_queue';

async function step(n: number): Promise<{ n: number; ok: boolean }> {
  return { n, ok: true };
}

async function chain(i: number): Promise<{ i: number; steps: number }> {
  await DBOS.runStep(() => step(1), { name: 'one' });
  await DBOS.runStep(() => step(2), { name: 'two' });
  await DBOS.runStep(() => step(3), { name: 'three' });
  return { i, steps: 3 };
}

const workflow = DBOS.registerWorkflow(chain, { name: 'chain' });

async function main(): Promise<void> {
  const job = parseJob();
  const db = new Client({ connectionString: job.url });
  await db.connect();
  const done = async (ids: string[]): Promise<boolean> => {
    const res = await db.query<{ ok: string; bad: string }>(
      `SELECT count(*) FILTER (WHERE status = 'SUCCESS') AS ok,
              count(*) FILTER (WHERE status IN ('ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED')) AS bad
       FROM dbos.workflow_status WHERE workflow_uuid = ANY ($1::text[])`,
      [ids],
    );
    if (Number(res.rows[0].bad) > 0) throw new Error('DBOS workflows failed');
    return Number(res.rows[0].ok) === ids.length;
  };
  const config = {
    name: APP,
    systemDatabaseUrl: job.url,
    systemDatabasePoolSize: 20,
    logLevel: 'error',
  };

  let ids: string[] = [];
  let start: number;
  let walBefore = NaN;
  if (job.mode === 'a') {
    DBOS.setConfig(config);
    await DBOS.launch();
    const warm = await Promise.all(
      Array.from({ length: job.warmup }, (_, i) => DBOS.startWorkflow(workflow)(-1 - i)),
    );
    await waitFor('DBOS warm-up', () => done(warm.map((h) => h.workflowID)), 120_000);
    ids = new Array<string>(job.runs);
    walBefore = await walPosition(db);
    start = nowMs();
    await pooled(job.runs, job.inFlight, async (i) => {
      const handle = await DBOS.startWorkflow(workflow)(i);
      ids[i] = handle.workflowID;
    });
  } else {
    await DBOS.migrate(job.url);
    const client = await DBOSClient.create({ systemDatabaseUrl: job.url });
    await client.registerQueue(QUEUE, { applicationName: APP });
    ids = new Array<string>(job.runs);
    await pooled(job.runs, job.inFlight, async (i) => {
      const handle = await client.enqueue({ workflowName: 'chain', queueName: QUEUE }, i);
      ids[i] = handle.workflowID;
    });
    await client.destroy();
    DBOS.setConfig(config);
    await DBOS.launch();
    start = NaN;
  }
  await waitFor(`${job.runs} DBOS workflows`, () => done(ids), 600_000);
  const end = nowMs();
  // (a): the WAL of starting and running the workflows (the polls of `done` write none).
  const walBytes = (await walPosition(db)) - walBefore;
  const rows = (
    await db.query<{ created_at: string; started: string | null; updated_at: string }>(
      `SELECT created_at, started_at_epoch_ms AS started, updated_at
       FROM dbos.workflow_status WHERE workflow_uuid = ANY ($1::text[])`,
      [ids],
    )
  ).rows;
  if (job.mode === 'b') start = Math.min(...rows.map((r) => Number(r.started ?? r.created_at)));
  const from = (r: (typeof rows)[number]) => (job.mode === 'a' ? Number(r.created_at) : start);
  const lat = rows.map((r) => Number(r.updated_at) - from(r));
  const seconds = (end - start) / 1000;
  await db.end();
  await DBOS.shutdown();
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
