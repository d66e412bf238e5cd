/**
 * `npm run bench [-- flags]`: builds the service (the npm script does), starts it in production mode as
 * its own process against PostgreSQL, runs the scenarios of issue 6, prints one markdown table and
 * writes bench/results/<timestamp>.json. See bench/README.md and `--help`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  createDatabase,
  dropAll,
  findDatabaseServer,
  type BenchDatabase,
  type DatabaseServer,
} from './lib/db';
import {
  bootstrapWorkspace,
  createDefinition,
  serviceErrors,
  startService,
  THREE_NOOP_STEPS,
  type Service,
} from './lib/service';
import type { BenchOptions, Throughput } from './lib/types';
import { log, median, round } from './lib/util';
import { runPeer, type PeerJob } from './peers/protocol';
import {
  apiLatency,
  CREATE,
  FLOOR,
  GET_ONE,
  GET_ONE_OPEN,
  FLOOR_OPEN_HALF,
  FLOOR_OPEN_SAME,
  LIST,
  NEST_FLOOR,
  PG_FLOOR_OPEN,
  pairedSeconds,
  dispatchLatency,
  type CannonResult,
  type DispatchResult,
} from './scenarios/latency';
import { parkAndDrain, PARK_STEPS, type ParkResult } from './scenarios/park';
import { findPgbench, pgbenchCeiling, type PgbenchResult } from './scenarios/pgbench';
import { explainPlans, insertRuns, scaleQueries, type QueryLatency } from './scenarios/scale';
import { endToEnd, executionOnly, type Target } from './scenarios/throughput';
import { openStreams, STREAMS, type OpenStreams, type StreamsResult } from './scenarios/streams';
import { THREE_TRANSFORM_STEPS, type TransformResult } from './scenarios/transform';
import { SCHEDULES, schedulesDueTogether, type SchedulesResult } from './scenarios/schedules';
import { MAP_STEPS, mapExecution, type MapResult } from './scenarios/map';
import {
  OBSERVABILITY_VARIANTS,
  startCollector,
  variantEnv,
  type ObservabilityResult,
  type ObservabilityVariant,
} from './scenarios/observability';

const HELP = `npm run bench -- [flags]

  --quick               small sizes, finishes in under 2 minutes (defaults below in brackets)
  --runs=N              runs per throughput measurement, scenarios 1, 2, 6, 7, 8, 9 2000 [200]
  --in-flight=N         requests in flight while creating runs                      32
  --repeat=N            repetitions of each throughput measurement (median kept)   3 [1]
  --dispatch=N          sequential 1-step runs for dispatch latency                200 [30]
  --api-seconds=N       autocannon duration per endpoint                           10 [2]
  --connections=N       autocannon connections                                     50
  --park=N              runs parked at an external_event step                      10000 [500]
  --scale=N             runs inserted with SQL for the scale scenario              1000000 [50000]
  --scale-samples=N     sequential requests per query in the scale scenario        200 [30]
  --pgbench-seconds=N   pgbench duration                                           15 [3]
  --map-items=N         items of the map run in scenario 10                        1000 [1000]
  --list-runs=N         runs in the workspace while scenario 4 lists them          100000 [10000]
  --only=1,2,...        run only these scenarios (1-11; 2 includes pgbench)
  --keep                keep the benchmark databases (default: dropped)

Database: BENCH_DATABASE_URL, else PostgreSQL at 127.0.0.1:5432 (user postgres) when it answers,
else an embedded PostgreSQL. A fresh database is created per scenario and per peer.`;

function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string>();
  for (const a of argv) {
    if (a === '--help' || a === '-h') {
      console.log(HELP);
      process.exit(0);
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument ${a} (see --help)`);
    flags.set(m[1], m[2] ?? 'true');
  }
  const quick = flags.get('quick') === 'true';
  const num = (name: string, full: number, fast = full): number => {
    const v = flags.get(name);
    flags.delete(name);
    if (v === undefined) return quick ? fast : full;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const opts: BenchOptions = {
    quick,
    runs: num('runs', 2000, 200),
    inFlight: num('in-flight', 32),
    repeat: num('repeat', 3, 1),
    dispatchRuns: num('dispatch', 200, 30),
    apiSeconds: num('api-seconds', 10, 2),
    apiConnections: num('connections', 50),
    parkRuns: num('park', 10_000, 500),
    scaleRuns: num('scale', 1_000_000, 50_000),
    scaleSamples: num('scale-samples', 200, 30),
    pgbenchSeconds: num('pgbench-seconds', 15, 3),
    mapItems: num('map-items', 1000),
    listRuns: num('list-runs', 100_000, 10_000),
    only: new Set(
      (flags.get('only') ?? '1,2,3,4,5,6,7,8,9,10,11').split(',').map((s) => Number(s.trim())),
    ),
    build: true,
    keepDatabases: flags.get('keep') === 'true',
  };
  for (const k of ['quick', 'only', 'keep']) flags.delete(k);
  if (flags.size) throw new Error(`unknown flag(s): ${[...flags.keys()].join(', ')} (see --help)`);
  return opts;
}

/** A fresh database with the service started on it, one workspace, its key and a definition. */
interface Stage {
  db: BenchDatabase;
  svc: Service;
  sql: Client;
  target: Target;
  close(): Promise<void>;
}

async function stage(
  server: DatabaseServer,
  label: string,
  opts: BenchOptions,
  steps: unknown[] = THREE_NOOP_STEPS,
  env: Record<string, string> = {},
): Promise<Stage> {
  const db = await createDatabase(server, label);
  const svc = await startService(db.url, env);
  const { apiKey } = await bootstrapWorkspace(svc.baseUrl, `bench-${label.replace(/_/g, '-')}`);
  const definitionId = await createDefinition(svc.baseUrl, apiKey, `bench-${label}`, steps);
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  return {
    db,
    svc,
    sql,
    target: { databaseUrl: db.url, apiKey, definitionId, steps: steps.length },
    close: async () => {
      await sql.end();
      await svc.stop();
      if (!opts.keepDatabases) await db.drop();
    },
  };
}

/** Runs `measure` `repeat` times and keeps the repetition with the median runs/s. */
async function repeated(
  label: string,
  repeat: number,
  measure: () => Promise<Throughput>,
): Promise<{ median: Throughput; samples: Throughput[] }> {
  const samples: Throughput[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = await measure();
    log(`${label}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
    samples.push(t);
  }
  return { median: medianSample(samples), samples };
}

/** The sample nearest the median runs/s, carrying the median itself. */
function medianSample(samples: Throughput[]): Throughput {
  const m = median(samples.map((s) => s.runsPerSec));
  const pick = samples.reduce((best, s) =>
    Math.abs(s.runsPerSec - m) < Math.abs(best.runsPerSec - m) ? s : best,
  );
  return { ...pick, runsPerSec: m, stepsPerSec: m * (pick.stepsPerSec / pick.runsPerSec) };
}

interface Results {
  startedAt: string;
  /** Error-level log lines of the service processes (none expected). */
  serviceErrors?: string[];
  finishedAt?: string;
  options: Omit<BenchOptions, 'only'> & { only: number[] };
  machine: Record<string, unknown>;
  throughput?: {
    a: Throughput;
    /** 1(a) with an Idempotency-Key on every POST, measured alternating with `a`. */
    aKeyed: Throughput;
    /**
     * The median over the repetitions of keyed runs/s / plain runs/s, each pair measured one after
     * the other (issue 16: at least 0.9).
     */
    keyedRatio: number;
    b: Throughput;
    samples: { a: Throughput[]; aKeyed: Throughput[]; b: Throughput[] };
  };
  peers?: Record<
    string,
    {
      a: Throughput;
      b: Throughput;
      /** Our 1(a), measured in pairs with the peer's (a): the median sample, and each pair's ratio. */
      oursA: Throughput;
      pairRatiosA: number[];
      settings: string;
    }
  >;
  /** Ours / peer: (a) the median of the pairs' ratios; (b) 1(b) over the peer's (b), when 1 ran. */
  ratios?: Record<string, { a: number; b?: number }>;
  pgbench?: PgbenchResult | { skipped: string };
  dispatch?: DispatchResult;
  api?: CannonResult[];
  park?: ParkResult;
  scale?: {
    runs: number;
    stepRuns: number;
    events: number;
    insertSeconds: number;
    filterStatus: string;
    queries: QueryLatency[];
    executionOnly: Throughput;
    /** 1(b) in an empty database, measured beside it. */
    reference: Throughput;
    vsBaseline: number;
    plans: Record<string, string>;
  };
  transform?: TransformResult;
  map?: MapResult;
  observability?: ObservabilityResult;
  streams?: StreamsResult;
  schedules?: SchedulesResult;
}

/** The fewest pairs of 1(a) without and with an Idempotency-Key measured (unless --quick). */
const KEYED_PAIRS = 7;

/**
 * 1(a), and 1(a) with an Idempotency-Key on every POST (issue 16: within 10% of without), in one
 * service and database, alternating at each repetition (which goes first alternates too), so that the
 * ratio holds on a machine whose speed drifts.
 */
async function scenarioThroughput(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(
    `scenario 1(a): ${opts.runs} runs end to end, ${opts.inFlight} in flight, without and with ` +
      'an Idempotency-Key on every POST',
  );
  const sa = await stage(server, 's1a', opts);
  // A pair's ratio swings by +-20% on a shared 2-core machine (its disk and neighbours): at least
  // KEYED_PAIRS pairs, so that their median says something about the code.
  const keyedPairs = opts.quick ? opts.repeat : Math.max(opts.repeat, KEYED_PAIRS);
  const a: Record<'plain' | 'keyed', Throughput[]> = { plain: [], keyed: [] };
  try {
    // Warm-up (JIT, pools, the claim's prepared statement), not measured.
    for (const keyed of [false, true]) {
      await endToEnd(sa.svc, sa.sql, sa.target, opts.quick ? 20 : 50, opts.inFlight, keyed);
    }
    for (let i = 0; i < keyedPairs; i++) {
      const order = i % 2 === 0 ? (['plain', 'keyed'] as const) : (['keyed', 'plain'] as const);
      for (const kind of order) {
        const t = await endToEnd(
          sa.svc,
          sa.sql,
          sa.target,
          opts.runs,
          opts.inFlight,
          kind === 'keyed',
        );
        log(`1(a) ${kind}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
        a[kind].push(t);
      }
      const ratio = a.keyed[i].runsPerSec / a.plain[i].runsPerSec;
      log(`1(a) repetition ${i + 1}: keyed / plain ${(ratio * 100).toFixed(1)}%`);
    }
  } catch (err) {
    log(`service log:\n${sa.svc.logs()}`);
    throw err;
  } finally {
    await sa.close();
  }
  log(
    `scenario 1(b): ${opts.runs} runs created with the executor paused, then an executor started`,
  );
  const sb = await stage(server, 's1b', opts, THREE_NOOP_STEPS, { EXECUTOR_ENABLED: 'false' });
  let b;
  try {
    b = await repeated('1(b)', opts.repeat, () =>
      executionOnly(sb.svc, sb.sql, sb.target, opts.runs, opts.inFlight),
    );
  } catch (err) {
    log(`service log:\n${sb.svc.logs()}`);
    throw err;
  } finally {
    await sb.close();
  }
  const plain = medianSample(a.plain);
  const keyed = medianSample(a.keyed);
  r.throughput = {
    a: plain,
    aKeyed: keyed,
    keyedRatio: median(a.keyed.map((k, i) => k.runsPerSec / a.plain[i].runsPerSec)),
    b: b.median,
    samples: { a: a.plain, aKeyed: a.keyed, b: b.samples },
  };
  log(
    `1(a) with Idempotency-Key: ${(r.throughput.keyedRatio * 100).toFixed(1)}% of without ` +
      `(median of the repetitions' ratios; medians ${keyed.runsPerSec.toFixed(1)} and ` +
      `${plain.runsPerSec.toFixed(1)} runs/s)`,
  );
}

/**
 * 7: 1(b) with a 3-step `transform` workflow, and 1(b) itself (3-step `noop`) measured in the same
 * scenario and database as the reference, the two alternating at each repetition, so that the ratio
 * holds on a machine whose speed drifts and neither workflow always runs first.
 */
async function scenarioTransform(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 7: ${opts.runs} runs of a 3-step transform workflow, execution only`);
  const s = await stage(server, 's7', opts, THREE_NOOP_STEPS, { EXECUTOR_ENABLED: 'false' });
  const samples: Record<'noop' | 'transform', Throughput[]> = { noop: [], transform: [] };
  try {
    const targets = {
      noop: s.target,
      transform: {
        ...s.target,
        definitionId: await createDefinition(
          s.svc.baseUrl,
          s.target.apiKey,
          'bench-s7-transform',
          THREE_TRANSFORM_STEPS,
        ),
      },
    };
    for (let i = 0; i < opts.repeat; i++) {
      for (const kind of ['noop', 'transform'] as const) {
        const t = await executionOnly(s.svc, s.sql, targets[kind], opts.runs, opts.inFlight);
        log(`7 ${kind}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
        samples[kind].push(t);
      }
    }
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
  r.transform = {
    transform: medianSample(samples.transform),
    noop: medianSample(samples.noop),
    samples,
  };
}

/**
 * 10: one `map` step over --map-items `noop` items at maxConcurrency 50, and 1(b) itself (3-step
 * `noop` runs) in the same scenario and database as the reference, alternating at each repetition
 * like scenario 7; the map's steps/s counts items. Target: at least 70% of 1(b)'s steps/s.
 */
async function scenarioMap(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 10: a map of ${opts.mapItems} noop items at maxConcurrency 50, execution only`);
  const s = await stage(server, 's10', opts, THREE_NOOP_STEPS, { EXECUTOR_ENABLED: 'false' });
  const samples: Record<'noop' | 'map', Throughput[]> = { noop: [], map: [] };
  try {
    const mapTarget = {
      ...s.target,
      definitionId: await createDefinition(
        s.svc.baseUrl,
        s.target.apiKey,
        'bench-s10-map',
        MAP_STEPS,
      ),
    };
    for (let i = 0; i < opts.repeat; i++) {
      const noop = await executionOnly(s.svc, s.sql, s.target, opts.runs, opts.inFlight);
      log(`10 1(b): ${noop.stepsPerSec.toFixed(1)} steps/s (${noop.seconds.toFixed(2)} s)`);
      samples.noop.push(noop);
      const map = await mapExecution(s.svc, s.sql, mapTarget, opts.mapItems);
      log(`10 map: ${map.stepsPerSec.toFixed(1)} items/s (${map.seconds.toFixed(2)} s)`);
      samples.map.push(map);
    }
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
  r.map = {
    items: opts.mapItems,
    map: medianSample(samples.map),
    noop: medianSample(samples.noop),
    samples,
  };
}

/**
 * 8: 1(b) with metrics off (METRICS_ENABLED=false), with metrics (the default), and with metrics and
 * OpenTelemetry traces sampled at 10% exported to a loopback OTLP/HTTP receiver, in one database, the
 * order rotating at each repetition, so that each variant's cost is a ratio measured in the same run.
 */
async function scenarioObservability(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 8: ${opts.runs} runs, execution only, metrics off / on / on with traces at 10%`);
  const s = await stage(server, 's8', opts, THREE_NOOP_STEPS, { EXECUTOR_ENABLED: 'false' });
  const collector = await startCollector();
  const samples: Record<ObservabilityVariant, Throughput[]> = { off: [], metrics: [], tracing: [] };
  try {
    for (let i = 0; i < opts.repeat; i++) {
      for (let k = 0; k < OBSERVABILITY_VARIANTS.length; k++) {
        const variant = OBSERVABILITY_VARIANTS[(i + k) % OBSERVABILITY_VARIANTS.length];
        const env = variantEnv(variant, collector.endpoint);
        const t = await executionOnly(s.svc, s.sql, s.target, opts.runs, opts.inFlight, env);
        log(`8 ${variant}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
        samples[variant].push(t);
      }
    }
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
    await collector.close();
  }
  r.observability = {
    off: medianSample(samples.off),
    metrics: medianSample(samples.metrics),
    tracing: medianSample(samples.tracing),
    exports: { ...collector.received },
    samples,
  };
}

/**
 * 9: 1(b) with no event stream open, and 1(b) with STREAMS streams open (on the API process, one per
 * run) on as many of the queued runs before the executor starts, so that every stream follows a run
 * as it executes; alternating at each repetition, in one database. Each stream must end by itself
 * (the server closes it after WORKFLOW_COMPLETED): a measurement whose streams did not all end, or
 * got fewer messages than their runs' events, fails the scenario.
 */
async function scenarioStreams(server: DatabaseServer, opts: BenchOptions, r: Results) {
  const count = Math.min(STREAMS, opts.runs);
  log(`scenario 9: ${opts.runs} runs, execution only, without and with ${count} event streams`);
  const s = await stage(server, 's9', opts, THREE_NOOP_STEPS, {
    EXECUTOR_ENABLED: 'false',
    SSE_MAX_STREAMS_PER_WORKSPACE: String(count),
  });
  const samples: Record<'none' | 'streams', Throughput[]> = { none: [], streams: [] };
  const delivered: StreamsResult['delivered'] = [];
  // Set by the hook inside executionOnly (a holder, so that the type checker sees the assignment).
  const held: { open?: OpenStreams } = {};
  try {
    for (let i = 0; i < opts.repeat; i++) {
      const order = i % 2 === 0 ? (['none', 'streams'] as const) : (['streams', 'none'] as const);
      for (const kind of order) {
        held.open = undefined;
        const t = await executionOnly(
          s.svc,
          s.sql,
          s.target,
          opts.runs,
          opts.inFlight,
          {},
          kind === 'none'
            ? undefined
            : async (ids) => {
                // Spread over the queue, so that streams follow runs from start to end of the drain.
                const step = Math.floor(ids.length / count);
                const watched = ids.filter((_, k) => k % step === 0).slice(0, count);
                held.open = await openStreams(s.svc.baseUrl, s.target.apiKey, watched);
              },
        );
        const open = held.open as OpenStreams | undefined;
        if (open) {
          const tally = await Promise.race([
            open.finished,
            new Promise<never>((_, reject) =>
              setTimeout(
                () => reject(new Error('event streams still open 30 s after the drain')),
                30_000,
              ),
            ),
          ]);
          // A 3-step noop run records 8 events.
          if (tally.ended !== tally.streams || tally.messages !== tally.streams * 8) {
            throw new Error(`event streams incomplete: ${JSON.stringify(tally)}`);
          }
          delivered.push(tally);
        }
        log(`9 ${kind}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
        samples[kind].push(t);
      }
    }
  } catch (err) {
    held.open?.close();
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
  r.streams = {
    none: medianSample(samples.none),
    streams: medianSample(samples.streams),
    delivered,
    samples,
  };
}

const PEERS: Array<{
  key: string;
  script: 'dbos' | 'graphile';
  batched?: boolean;
  settings: string;
}> = [
  {
    key: 'DBOS',
    script: 'dbos',
    settings:
      'a: DBOS.startWorkflow, 32 starts in flight; b: DBOSClient.enqueue onto a queue, then DBOS.launch; system pool 20',
  },
  {
    key: 'graphile-worker',
    script: 'graphile',
    settings: 'concurrentJobs 24, maxPoolSize 25 (its performance page); each job adds the next',
  },
  {
    key: 'graphile-worker batched',
    script: 'graphile',
    batched: true,
    settings:
      'concurrentJobs 24, maxPoolSize 25, localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0',
  },
];

/** Scenario 11: SCHEDULES schedules due in the same second (see scenarios/schedules.ts). */
async function scenarioSchedules(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 11: ${SCHEDULES} schedules due in the same second`);
  const s = await stage(server, 'schedules', opts, [
    { type: 'task', name: 'only', handler: 'noop' },
  ]);
  try {
    const { baseUrl } = s.svc;
    const { apiKey, definitionId } = s.target;
    r.schedules = await schedulesDueTogether(baseUrl, apiKey, definitionId, s.sql, opts.inFlight);
    log(
      `scenario 11: last run created ${r.schedules.createdLastMs.toFixed(0)} ms after the fire, ` +
        `last started ${r.schedules.startedLastMs.toFixed(0)} ms, last completed ` +
        `${r.schedules.completedLastMs.toFixed(0)} ms`,
    );
  } finally {
    await s.close();
  }
}

/**
 * 2: each peer at its best, (a) submitted while running and (b) queued then drained. (a) is measured
 * in pairs with our 1(a) (runs created over HTTP, the executor running; one service and database for
 * the whole scenario), which goes first alternating, so that the ratio holds on a machine whose speed
 * drifts: the ratio reported is the median of the pairs' ratios. (b) is compared with 1(b) of
 * scenario 1 when it ran.
 */
async function scenarioPeers(server: DatabaseServer, opts: BenchOptions, r: Results) {
  r.peers = {};
  const ours = await stage(server, 's2', opts);
  try {
    await endToEnd(ours.svc, ours.sql, ours.target, opts.quick ? 20 : 50, opts.inFlight);
    for (const peer of PEERS) {
      const measurePeer = async (mode: 'a' | 'b') => {
        const db = await createDatabase(
          server,
          `peer_${peer.script}${peer.batched ? '_batched' : ''}_${mode}`,
        );
        try {
          const job: PeerJob = {
            url: db.url,
            mode,
            runs: opts.runs,
            inFlight: opts.inFlight,
            warmup: opts.quick ? 20 : 50,
            batched: peer.batched,
          };
          return await runPeer(peer.script, job);
        } finally {
          if (!opts.keepDatabases) await db.drop();
        }
      };
      log(`scenario 2: ${peer.key} (a) in pairs with our 1(a), ${opts.runs} runs each`);
      const pairs: Array<{ ours: Throughput; peer: Throughput }> = [];
      for (let i = 0; i < opts.repeat; i++) {
        const pair: Partial<{ ours: Throughput; peer: Throughput }> = {};
        for (const who of i % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
          pair[who] =
            who === 'ours'
              ? await endToEnd(ours.svc, ours.sql, ours.target, opts.runs, opts.inFlight)
              : await measurePeer('a');
          log(
            `${who === 'ours' ? 'ours 1(a)' : `${peer.key} (a)`}: ${pair[who].runsPerSec.toFixed(1)} runs/s`,
          );
        }
        pairs.push({ ours: pair.ours!, peer: pair.peer! });
      }
      log(`scenario 2: ${peer.key} (b), ${opts.runs} runs`);
      const b = await repeated(`${peer.key} (b)`, opts.repeat, () => measurePeer('b'));
      r.peers[peer.key] = {
        a: medianSample(pairs.map((x) => x.peer)),
        b: b.median,
        oursA: medianSample(pairs.map((x) => x.ours)),
        pairRatiosA: pairs.map((x) => x.ours.runsPerSec / x.peer.runsPerSec),
        settings: peer.settings,
      };
    }
  } catch (err) {
    log(`service log:\n${ours.svc.logs()}`);
    throw err;
  } finally {
    await ours.close();
  }
  r.ratios = {};
  for (const [key, p] of Object.entries(r.peers)) {
    r.ratios[key] = {
      a: median(p.pairRatiosA),
      b: r.throughput ? r.throughput.b.runsPerSec / p.b.runsPerSec : undefined,
    };
  }
  const pgbench = findPgbench();
  if (!pgbench || server.kind === 'embedded') {
    r.pgbench = { skipped: pgbench ? 'embedded PostgreSQL' : 'pgbench not found' };
  } else {
    log(`pgbench ceiling: 8 clients, ${opts.pgbenchSeconds} s`);
    const db = await createDatabase(server, 'pgbench');
    try {
      r.pgbench = await pgbenchCeiling(server, db, pgbench, opts.pgbenchSeconds);
    } finally {
      if (!opts.keepDatabases) await db.drop();
    }
  }
}

async function scenarioDispatch(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 3: dispatch latency, ${opts.dispatchRuns} sequential 1-step runs`);
  const s = await stage(server, 's3', opts, [{ type: 'task', name: 'only', handler: 'noop' }]);
  try {
    await dispatchLatency(s.svc, s.sql, s.target, 10); // warm-up
    r.dispatch = await dispatchLatency(s.svc, s.sql, s.target, opts.dispatchRuns);
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
}

async function scenarioApi(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(
    `scenario 4: API latency, autocannon ${opts.apiSeconds} s x ${opts.apiConnections} connections`,
  );
  const s = await stage(server, 's4', opts);
  try {
    r.api = await apiLatency(
      s.svc,
      s.sql,
      s.target,
      opts.apiSeconds,
      opts.apiConnections,
      opts.listRuns,
    );
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
}

async function scenarioPark(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 5: ${opts.parkRuns} runs parked at an external_event step, then resumed`);
  const s = await stage(server, 's5', opts, PARK_STEPS);
  try {
    const control = await createDefinition(s.svc.baseUrl, s.target.apiKey, 'control', [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    r.park = await parkAndDrain(
      s.svc,
      s.sql,
      s.target,
      opts.parkRuns,
      opts.inFlight,
      control,
      // 20 s: V8's memory reducer collects an idle heap about 8 s after allocation slows down; a
      // 10 s window often ended before it (the same code read -29 MB and +56 MB).
      opts.quick ? 3000 : 20_000,
    );
  } catch (err) {
    log(`service log:\n${s.svc.logs()}`);
    throw err;
  } finally {
    await s.close();
  }
}

async function scenarioScale(server: DatabaseServer, opts: BenchOptions, r: Results) {
  log(`scenario 6: ${opts.scaleRuns} runs inserted with SQL across 10 workspaces`);
  const db = await createDatabase(server, 's6');
  const api = await startService(db.url, { EXECUTOR_ENABLED: 'false' });
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  try {
    const workspaces: Array<{ workspaceId: string; apiKey: string; definitionId: string }> = [];
    for (let w = 0; w < 10; w++) {
      const ws = await bootstrapWorkspace(api.baseUrl, `scale-${w}`);
      const definitionId = await createDefinition(
        api.baseUrl,
        ws.apiKey,
        'scale',
        THREE_NOOP_STEPS,
      );
      workspaces.push({ ...ws, definitionId });
    }
    const inserted = await insertRuns(
      sql,
      workspaces.map((w) => w.workspaceId),
      workspaces.map((w) => w.definitionId),
      opts.scaleRuns,
    );
    const first = workspaces[0];
    const filterStatus = 'COMPLETED';
    log('scenario 6: query latency over HTTP');
    const queries = await scaleQueries(
      api,
      sql,
      first.workspaceId,
      first.apiKey,
      opts.scaleSamples,
      filterStatus,
    );
    const plans = await explainPlans(sql, first.workspaceId, filterStatus);
    log(`scenario 6: 1(b) again on top of ${inserted.runs} runs`);
    const target: Target = {
      databaseUrl: db.url,
      apiKey: first.apiKey,
      definitionId: first.definitionId,
      steps: 3,
    };
    // The reference is 1(b) in an empty database measured beside it, alternating at each repetition
    // (which goes first alternates too): scenario 1's 1(b), minutes earlier, drifts with the machine
    // as much as the difference this row is about (plain 1(b) read 1,455-1,810 runs/s in one run).
    const empty = await stage(server, 's6_empty', opts, THREE_NOOP_STEPS, {
      EXECUTOR_ENABLED: 'false',
    });
    const samples: Record<'scale' | 'empty', Throughput[]> = { scale: [], empty: [] };
    try {
      for (let i = 0; i < opts.repeat; i++) {
        const order = i % 2 === 0 ? (['scale', 'empty'] as const) : (['empty', 'scale'] as const);
        for (const kind of order) {
          const t =
            kind === 'scale'
              ? await executionOnly(api, sql, target, opts.runs, opts.inFlight)
              : await executionOnly(empty.svc, empty.sql, empty.target, opts.runs, opts.inFlight);
          log(`6: 1(b) ${kind}: ${t.runsPerSec.toFixed(1)} runs/s (${t.seconds.toFixed(2)} s)`);
          samples[kind].push(t);
        }
      }
    } finally {
      await empty.close();
    }
    const onTop = medianSample(samples.scale);
    const reference = medianSample(samples.empty);
    r.scale = {
      runs: inserted.runs,
      stepRuns: inserted.stepRuns,
      events: inserted.events,
      insertSeconds: inserted.seconds,
      filterStatus,
      queries,
      executionOnly: onTop,
      reference,
      vsBaseline: onTop.runsPerSec / reference.runsPerSec,
      plans,
    };
  } catch (err) {
    log(`service log:\n${api.logs()}`);
    throw err;
  } finally {
    await sql.end();
    await api.stop();
    if (!opts.keepDatabases) await db.drop();
  }
}

// ---------------------------------------------------------------------------------------------------

const f = (n: number | undefined, d = 1): string =>
  n === undefined || !Number.isFinite(n) ? 'n/a' : round(n, d).toLocaleString('en-US');
const verdict = (ok: boolean | undefined): string =>
  ok === undefined ? '' : ok ? 'met' : 'MISSED';

function table(r: Results): string {
  const rows: string[][] = [];
  const add = (s: string, m: string, v: string, target = '', ok?: boolean) =>
    rows.push([s, m, v, target, verdict(ok)]);
  const tp = (t: Throughput) =>
    `${f(t.runsPerSec)} runs/s, ${f(t.stepsPerSec)} steps/s; p50 ${f(t.p50Ms, 0)} ms, p99 ${f(t.p99Ms, 0)} ms` +
    (t.walBytesPerStep === undefined ? '' : `; WAL ${f(t.walBytesPerStep / 1024, 1)} kB/step`);
  if (r.throughput) {
    add(
      '1(a) end to end',
      `${r.throughput.a.runs} x 3-step noop, 32 in flight`,
      tp(r.throughput.a),
    );
    add(
      '1(a) with Idempotency-Key',
      'the same, a new key on every POST, alternating with 1(a)',
      `${tp(r.throughput.aKeyed)}; ${f(r.throughput.keyedRatio * 100, 1)}% of 1(a) (median of ` +
        `the repetitions' ratios: ${r.throughput.samples.aKeyed
          .map((k, i) => `${f((k.runsPerSec / r.throughput!.samples.a[i].runsPerSec) * 100, 0)}%`)
          .join(', ')})`,
      '>= 90% of 1(a)',
      r.throughput.keyedRatio >= 0.9,
    );
    add(
      '1(b) execution only',
      `${r.throughput.b.runs} runs queued, then executor`,
      tp(r.throughput.b),
    );
  }
  if (r.transform) {
    const t = r.transform;
    add(
      '7 transform, execution only',
      `${t.transform.runs} x 3-step transform, queued, then executor`,
      `${tp(t.transform)}; ${f((t.transform.runsPerSec / t.noop.runsPerSec) * 100, 0)}% of 1(b) ` +
        `measured beside it (${f(t.noop.runsPerSec)} runs/s, ${f(t.noop.stepsPerSec)} steps/s)`,
    );
  }
  if (r.map) {
    const m = r.map;
    const share = m.map.stepsPerSec / m.noop.stepsPerSec;
    add(
      '10 map, execution only',
      `1 run mapping ${m.items} noop items, maxConcurrency 50`,
      `${f(m.map.stepsPerSec)} items/s; ${f(share * 100, 0)}% of the ` +
        `steps/s of 1(b) measured beside it (${f(m.noop.stepsPerSec)} steps/s)`,
      '>= 70% of 1(b) steps/s',
      share >= 0.7,
    );
  }
  if (r.observability) {
    const o = r.observability;
    const share = (t: Throughput) => t.runsPerSec / o.off.runsPerSec;
    // The executor's own CPU per step: steadier than runs/s on a shared machine.
    const cpu = (t: Throughput) =>
      t.cpuMsPerStep ? `; executor CPU ${f(t.cpuMsPerStep.service, 3)} ms/step` : '';
    add(
      '8 observability',
      `1(b) with metrics off (${o.off.runs} runs)`,
      `${tp(o.off)}${cpu(o.off)}`,
    );
    add(
      '8 observability',
      '1(b) with metrics on',
      `${tp(o.metrics)}${cpu(o.metrics)}; ${f(share(o.metrics) * 100, 1)}% of off`,
      '>= 95% of off',
      share(o.metrics) >= 0.95,
    );
    add(
      '8 observability',
      '1(b) with metrics and traces at 10% sampling',
      `${tp(o.tracing)}${cpu(o.tracing)}; ${f(share(o.tracing) * 100, 1)}% of off; ` +
        `the collector received ` +
        `${o.exports.requests} exports (${f(o.exports.bytes / 1024)} kB)`,
      '>= 85% of off',
      share(o.tracing) >= 0.85,
    );
  }
  if (r.streams) {
    const x = r.streams;
    const share = x.streams.runsPerSec / x.none.runsPerSec;
    const got = x.delivered.reduce((sum, d) => sum + d.messages, 0);
    add('9 event streams', `1(b) without streams (${x.none.runs} runs)`, tp(x.none));
    add(
      '9 event streams',
      `1(b) with ${x.delivered[0]?.streams ?? STREAMS} streams open on executing runs`,
      `${tp(x.streams)}; ${f(share * 100, 1)}% of without; ${got} messages delivered, every ` +
        'stream ended by the server after WORKFLOW_COMPLETED',
      '>= 90% of without',
      share >= 0.9,
    );
  }
  if (r.schedules) {
    const x = r.schedules;
    add(
      '11 schedules',
      `${x.schedules} schedules due in the same second, 1-step noop (created in ${f(x.createSeconds, 1)} s)`,
      `${x.runs} runs; created p50 ${f(x.createdP50Ms, 0)} ms, p99 ${f(x.createdP99Ms, 0)} ms, ` +
        `last ${f(x.createdLastMs, 0)} ms after the fire; last WORKFLOW_STARTED ` +
        `${f(x.startedLastMs, 0)} ms, last completed ${f(x.completedLastMs, 0)} ms`,
      'all started within 5 s, one run each',
      x.runs === x.schedules && x.startedLastMs < 5000,
    );
  }
  if (r.peers) {
    for (const [k, p] of Object.entries(r.peers)) {
      add(`2 ${k}`, '(a) submitted while running', tp(p.a));
      add(`2 ${k}`, '(a) our 1(a) measured in pairs with it', tp(p.oursA));
      add(`2 ${k}`, '(b) queued, then worker', tp(p.b));
    }
  }
  if (r.ratios) {
    for (const [k, x] of Object.entries(r.ratios)) {
      const need = k === 'DBOS' ? 2 : k === 'graphile-worker batched' ? 1.2 : undefined;
      const pairs = r.peers?.[k]?.pairRatiosA.map((v) => `${f(v, 2)}x`).join(', ') ?? '';
      add(
        `2 ours / ${k}`,
        'runs/s ratio (a) over HTTP, median of the pairs; (b) 1(b) / peer (b)',
        `${f(x.a, 2)}x (pairs: ${pairs}), ${x.b === undefined ? 'n/a (scenario 1 not run)' : `${f(x.b, 2)}x`}`,
        need ? `>= ${need}x` : '',
        need ? x.a >= need && (x.b === undefined || x.b >= need) : undefined,
      );
    }
  }
  // Ours: 1(a) as measured beside DBOS in scenario 2 (else scenario 1's).
  const oursWal = r.peers?.DBOS?.oursA.walBytesPerStep ?? r.throughput?.a.walBytesPerStep;
  if (oursWal !== undefined && r.peers) {
    // Issue 17: WAL per run, creation and execution, at most DBOS's for the same workload.
    const kb = (perStep: number) => `${f((perStep * 3) / 1024, 1)} kB`;
    const peers = Object.entries(r.peers)
      .filter(([, p]) => p.a.walBytesPerStep !== undefined)
      .map(([k, p]) => `${k} ${kb(p.a.walBytesPerStep!)}`);
    const dbos = r.peers.DBOS?.a.walBytesPerStep;
    add(
      '2 WAL per run',
      '(a): 3-step noop runs started and executed',
      `ours ${kb(oursWal)} (over HTTP, as 1(a)); ${peers.join(', ')}`,
      '<= DBOS',
      dbos === undefined ? undefined : oursWal <= dbos,
    );
  }
  if (r.pgbench) {
    if ('skipped' in r.pgbench)
      add('2 pgbench ceiling', 'INSERT + UPDATE per tx', `skipped (${r.pgbench.skipped})`);
    else
      add(
        '2 pgbench ceiling',
        `INSERT + UPDATE per tx, ${r.pgbench.clients} clients, ${r.pgbench.seconds} s`,
        `${f(r.pgbench.tps, 0)} tx/s (avg ${f(r.pgbench.latencyAvgMs, 2)} ms)`,
      );
  }
  if (r.dispatch) {
    const d = r.dispatch;
    add(
      '3 dispatch latency',
      `POST answer -> STEP_STARTED, ${d.runs} sequential`,
      `p50 ${f(d.toStartP50Ms)} ms, p99 ${f(d.toStartP99Ms)} ms`,
      'p50 < 10 ms, p99 < 50 ms',
      d.toStartP50Ms < 10 && d.toStartP99Ms < 50,
    );
    add(
      '3 dispatch latency',
      'POST answer -> COMPLETED',
      `p50 ${f(d.toCompletedP50Ms)} ms, p99 ${f(d.toCompletedP99Ms)} ms`,
    );
  }
  if (r.api) {
    const floor = r.api.find((a) => a.name === FLOOR);
    // Paired measurements: the median of the rounds' ratios to `GET /live` right before each.
    const share = (a: CannonResult) =>
      a.pairs
        ? median(a.pairs.map((p) => p.ratio))
        : floor
          ? a.requestsPerSec / floor.requestsPerSec
          : NaN;
    // Issue 17: each endpoint's req/s against the service's own floor, measured in the same run.
    const targets: Array<[string, number]> = [
      [GET_ONE, 0.6],
      [LIST, 0.3],
      [CREATE, 0.25],
    ];
    const cpu = (a: CannonResult): string => {
      const u = a.usage;
      if (!u) return '';
      return (
        `; CPU in cores: service ${f(u.service, 2)}, PostgreSQL ${f(u.postgres, 2)}, load generator ` +
        `${f(u.loadGenerator, 2)}, machine ${f(u.machine, 2)} of ${u.cores}; ` +
        `${f(u.transactionsPerRequest, 3)} transactions per request`
      );
    };
    for (const a of r.api) {
      const clean = a.non2xx === 0 && a.errors === 0;
      const errors = `non-2xx ${a.non2xx}, errors ${a.errors}`;
      const latency = `p50 ${f(a.p50Ms)} ms, p99 ${f(a.p99Ms)} ms`;
      const conn = `${r.options.apiConnections} conn, ${r.options.apiSeconds} s`;
      if (a.name === FLOOR || a.name === NEST_FLOOR) {
        add(
          '4 API',
          `${a.name} (${conn})`,
          `${f(a.requestsPerSec, 0)} req/s; ${latency}; ${errors}${cpu(a)}`,
        );
        continue;
      }
      // Interleaved open-loop rounds: the round with the median p99, and every round's p99.
      const open = a.p99Rounds
        ? `${r.options.apiConnections} conn, ${a.p99Rounds.length} rounds of ${r.options.apiSeconds} s, ` +
          `in turn with the other rows at this rate`
        : conn;
      const p99s = a.p99Rounds
        ? ` (the median round; p99 of the rounds: ${a.p99Rounds.map((p) => f(p)).join(', ')} ms)`
        : '';
      if (a.name === FLOOR_OPEN_SAME || a.name === FLOOR_OPEN_HALF || a.name === PG_FLOOR_OPEN) {
        add(
          '4 API',
          `${a.name}: ${f(a.offeredRate, 0)} req/s offered (${open})`,
          `${f(a.requestsPerSec, 0)} req/s; ${latency}${p99s}; ${errors}${cpu(a)}`,
        );
        continue;
      }
      if (a.name === GET_ONE_OPEN) {
        add(
          '4 API',
          `${a.name}: ${f(a.offeredRate, 0)} req/s offered (${open})`,
          `${f(a.requestsPerSec, 0)} req/s; ${latency}${p99s}; ${errors}${cpu(a)}`,
          'p99 < 10 ms; 0 errors',
          a.p99Ms < 10 && clean,
        );
        continue;
      }
      const need = targets.find(([name]) => a.name.startsWith(name))?.[1];
      const rounds = a.pairs
        ? ` (rounds: ${a.pairs.map((p) => `${f(p.ratio * 100, 0)}% of ${f(p.floor, 0)}`).join(', ')})`
        : '';
      const measured = a.pairs
        ? `${r.options.apiConnections} conn, ${a.pairs.length} rounds of ` +
          `${pairedSeconds(r.options.apiSeconds)} s, each after GET /live as long`
        : conn;
      add(
        '4 API',
        `${a.name} (${measured})`,
        `${f(a.requestsPerSec, 0)} req/s (the median round), ${f(share(a) * 100, 0)}% of GET /live` +
          `${rounds}; ${latency}; ${errors}${cpu(a)}`,
        need === undefined ? '0 errors' : `>= ${f(need * 100, 0)}% of GET /live; 0 errors`,
        (need === undefined || share(a) >= need) && clean,
      );
    }
  }
  if (r.park) {
    const p = r.park;
    add(
      '5 waiting runs',
      `RSS growth, ${p.runs} runs parked at external_event`,
      `${f(p.rssGrowthMb)} MB (${f(p.rssBeforeMb)} -> ${f(p.rssParkedMb)} MB; after warm-up ` +
        `${f(p.rssBaselineMb)} MB, ${p.runs} completed runs before parking as control, ` +
        `${f(p.rssDrainedMb)} MB after the drain)`,
      '< 50 MB',
      p.rssGrowthMb < 50,
    );
    add(
      '5 waiting runs',
      `drain after resuming all ${p.runs}`,
      `${f(p.drainRunsPerSec)} runs/s (${f(p.drainSeconds, 2)} s; the resumes took ${f(p.resumeSeconds, 2)} s, ` +
        `${p.unfinishedAfterResumes} runs unfinished then)`,
      '>= 500 runs/s',
      p.drainRunsPerSec >= 500,
    );
  }
  if (r.scale) {
    const s = r.scale;
    const size = `${s.runs.toLocaleString('en-US')} runs${r.options.quick ? ' (--quick: reduced from 1,000,000)' : ''}`;
    for (const q of s.queries) {
      add(
        '6 scale',
        `${q.name} (${size})`,
        `p50 ${f(q.p50Ms)} ms, p99 ${f(q.p99Ms)} ms`,
        'p99 < 50 ms',
        q.p99Ms < 50,
      );
    }
    add(
      '6 scale',
      `1(b) again on top of ${size}`,
      `${tp(s.executionOnly)}; ${f(s.vsBaseline * 100, 0)}% of 1(b) in an empty database ` +
        `measured beside it (${f(s.reference.runsPerSec)} runs/s)`,
      '>= 90% of 1(b)',
      s.vsBaseline >= 0.9,
    );
  }
  const head = ['Scenario', 'Measure', 'Result', 'Target', ''];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const started = new Date();
  const server = await findDatabaseServer();
  const cpus = os.cpus();
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  const memoryGb = round(os.totalmem() / 1024 ** 3, 1);
  const results: Results = {
    startedAt: started.toISOString(),
    options: { ...opts, only: [...opts.only] },
    machine: {
      cores: cpus.length,
      cpuModel: cpus[0]?.model,
      memoryGb,
      node: process.version,
      postgres: server.version,
      database: server.kind,
      platform: `${os.platform()} ${os.release()}`,
      loadAverageAtStart: loadAtStart,
    },
  };
  log(
    `PostgreSQL ${server.version} (${server.kind}); ${cpus.length} cores; Node ${process.version}` +
      (opts.quick ? '; --quick' : ''),
  );
  const onSignal = () => {
    log('interrupted: dropping the benchmark databases');
    void dropAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (opts.only.has(1)) await scenarioThroughput(server, opts, results);
    if (opts.only.has(2)) await scenarioPeers(server, opts, results);
    if (opts.only.has(3)) await scenarioDispatch(server, opts, results);
    if (opts.only.has(4)) await scenarioApi(server, opts, results);
    if (opts.only.has(5)) await scenarioPark(server, opts, results);
    if (opts.only.has(6)) await scenarioScale(server, opts, results);
    if (opts.only.has(7)) await scenarioTransform(server, opts, results);
    if (opts.only.has(8)) await scenarioObservability(server, opts, results);
    if (opts.only.has(9)) await scenarioStreams(server, opts, results);
    if (opts.only.has(10)) await scenarioMap(server, opts, results);
    if (opts.only.has(11)) await scenarioSchedules(server, opts, results);
  } finally {
    if (!opts.keepDatabases) await dropAll();
    await server.stop();
  }
  results.finishedAt = new Date().toISOString();
  results.serviceErrors = serviceErrors;
  const dir = path.resolve(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const minutes = (Date.now() - started.getTime()) / 60000;
  console.log(
    `\n## Benchmark ${started.toISOString().slice(0, 16)}Z${opts.quick ? ' (--quick)' : ''}\n\n` +
      `${cpus.length} cores, ${memoryGb} GB, Node ${process.version}, ` +
      `PostgreSQL ${server.version} (${server.kind}); load average at start ` +
      `${loadAtStart.join(', ')}; ${f(minutes, 1)} min\n\n` +
      `${table(results)}\n\n` +
      (serviceErrors.length
        ? `The service logged ${serviceErrors.length} error(s): see serviceErrors in the results file.\n`
        : '') +
      `Results: ${path.relative(process.cwd(), file)}`,
  );
}

main().catch(async (err: unknown) => {
  console.error(err);
  await dropAll();
  process.exit(1);
});
