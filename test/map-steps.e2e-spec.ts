import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Module } from '@nestjs/common';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { NonRetryableError } from '../src/steps/step-executor';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import { startHoldServer, type HoldServer } from './support/hold-server';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import {
  createDefinition,
  eventually,
  runEvents,
  startRun,
  waitForRun,
  type Step,
} from './support/workflows';

/** Per probe group: items in flight now, the most ever in flight, and executions per item. */
const probes = new Map<string, { now: number; max: number; runs: Map<number, number> }>();
/** Items (group:index) that fail until removed from this set. */
const failing = new Set<string>();

/**
 * Measures concurrency where it happens: counts the items of its group executing at once, waits
 * `delayMs`, and fails (without retries) the items listed in `failing`.
 */
@TaskHandler('test.probe')
class ProbeHandler {
  async handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    const group = String(ctx.config.group);
    const index = Number(ctx.config.index);
    const p = probes.get(group) ?? { now: 0, max: 0, runs: new Map<number, number>() };
    probes.set(group, p);
    p.runs.set(index, (p.runs.get(index) ?? 0) + 1);
    p.now++;
    p.max = Math.max(p.max, p.now);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, Number(ctx.config.delayMs ?? 0));
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          },
          { once: true },
        );
      });
    } finally {
      p.now--;
    }
    if (failing.has(`${group}:${index}`)) throw new NonRetryableError(`item ${index} refused`);
    return { doubled: Number(ctx.config.value) * 2 };
  }
}

@Module({ providers: [ProbeHandler] })
class MapTestHandlersModule {}

const probeMap = (group: string, extra: Record<string, unknown> = {}, delayMs = 20): Step => ({
  type: 'map',
  name: 'each',
  items: 'numbers',
  maxConcurrency: 3,
  step: {
    type: 'task',
    handler: 'test.probe',
    config: { group, index: '{{index}}', value: '{{item}}', delayMs },
  },
  ...extra,
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('map steps', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp({}, { imports: [MapTestHandlersModule] });
    ({ key } = await createWorkspaceWithKey(t.http));
  });

  afterAll(async () => {
    await t.close();
  });

  it('runs 20 items never more than 3 at once and keeps their order in the output', async () => {
    const definitionId = await createDefinition(t.http, key, [probeMap('c3')]);
    const runId = await startRun(t.http, key, definitionId, { numbers: range(20) });
    const run = await waitForRun(t.http, key, runId, 'COMPLETED');
    expect(probes.get('c3')!.max).toBe(3);
    expect([...probes.get('c3')!.runs.values()].every((n) => n === 1)).toBe(true);
    expect(run.output).toMatchObject({
      each: { results: range(20).map((i) => ({ doubled: i * 2 })), failedItems: [] },
    });
    const events = await runEvents(t.http, key, runId);
    const items = events.filter((e) => e.eventType === 'MAP_ITEM_COMPLETED');
    expect(items.map((e) => e.payload.itemIndex).sort((a, b) => Number(a) - Number(b))).toEqual(
      range(20),
    );
    expect(items[0].payload).toMatchObject({ stepName: 'each', attempts: 1 });
    expect(events.map((e) => e.eventType).slice(-2)).toEqual([
      'STEP_COMPLETED',
      'WORKFLOW_COMPLETED',
    ]);
  });

  it('tolerates failures up to a count or a percentage, with failed items null in the output', async () => {
    for (const i of [3, 7]) failing.add(`tol:${i}`);
    const byCount = await createDefinition(t.http, key, [
      probeMap('tol', { toleratedFailures: 2 }, 0),
    ]);
    const ok = await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, byCount, { numbers: range(10) }),
      'COMPLETED',
    );
    const output = (ok.output as { each: { results: unknown[]; failedItems: unknown[] } }).each;
    expect(output.results[3]).toBeNull();
    expect(output.results[4]).toEqual({ doubled: 8 });
    expect(output.failedItems).toEqual([
      { index: 3, error: 'item 3 refused' },
      { index: 7, error: 'item 7 refused' },
    ]);

    // 10% of 10 items is 1: two failures are too many.
    const byPercent = await createDefinition(t.http, key, [
      probeMap('tol', { toleratedFailures: '10%' }, 0),
    ]);
    const failed = await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, byPercent, { numbers: range(10) }),
      'FAILED',
    );
    expect(failed.error).toBe(
      '2 of 10 items failed, more than the 1 tolerated (toleratedFailures); first, item 3: item 3 refused',
    );
    const twentyPercent = await createDefinition(t.http, key, [
      probeMap('tol', { toleratedFailures: '20%' }, 0),
    ]);
    await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, twentyPercent, { numbers: range(10) }),
      'COMPLETED',
    );
  });

  it('retries only the failed items when a failed map is retried', async () => {
    for (const i of [2, 5]) failing.add(`retry:${i}`);
    const definitionId = await createDefinition(t.http, key, [probeMap('retry', {}, 0)]);
    const runId = await startRun(t.http, key, definitionId, { numbers: range(8) });
    await waitForRun(t.http, key, runId, 'FAILED');
    failing.clear();
    const retry = await t.http.post(`/v1/workflow-runs/${runId}/retry`).set('x-api-key', key);
    expect(retry.status).toBe(200);
    const run = await waitForRun(t.http, key, runId, 'COMPLETED');
    const runs = probes.get('retry')!.runs;
    expect(range(8).map((i) => runs.get(i))).toEqual([1, 1, 2, 1, 1, 2, 1, 1]);
    expect((run.output as { each: { results: unknown[] } }).each.results).toEqual(
      range(8).map((i) => ({ doubled: i * 2 })),
    );
  });

  it('cancelling the run cancels its items: in flight ones are aborted, waiting ones never run', async () => {
    const definitionId = await createDefinition(t.http, key, [probeMap('cancel', {}, 60_000)]);
    const runId = await startRun(t.http, key, definitionId, { numbers: range(10) });
    await eventually(async () => probes.get('cancel')?.now === 3, 20_000, '3 items in flight');
    const cancel = await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', key);
    expect(cancel.status).toBe(200);
    await eventually(async () => probes.get('cancel')?.now === 0, 20_000, 'items aborted');
    const items = await t.sql<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM map_items WHERE run_id = $1 GROUP BY status`,
      [runId],
    );
    expect(items.map((r) => [r.status, Number(r.n)])).toEqual([['CANCELLED', 10]]);
    expect(probes.get('cancel')!.runs.size).toBe(3);
  });

  it('fails the step with a clear message over a value that is not an array, or too many items', async () => {
    const definitionId = await createDefinition(t.http, key, [probeMap('bad', { maxItems: 5 }, 0)]);
    const notArray = await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, definitionId, { numbers: { a: 1 } }),
      'FAILED',
    );
    expect(notArray.error).toBe('items: "numbers" is not an array in the run state (found object)');
    const tooMany = await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, definitionId, { numbers: range(6) }),
      'FAILED',
    );
    expect(tooMany.error).toBe('items: "numbers" has 6 items, more than maxItems (5)');
    const empty = await waitForRun(
      t.http,
      key,
      await startRun(t.http, key, definitionId, { numbers: [] }),
      'COMPLETED',
    );
    expect(empty.output).toMatchObject({ each: { results: [], failedItems: [] } });
  });

  it('runs a child run per item with a workflow sub-step, at most maxConcurrency at once', async () => {
    const childId = await createDefinition(t.http, key, [
      {
        type: 'task',
        name: 'double',
        handler: 'transform',
        config: { expression: '{"doubled": n * 2}' },
      },
    ]);
    const definitionId = await createDefinition(t.http, key, [
      {
        type: 'map',
        name: 'each',
        items: 'numbers',
        maxConcurrency: 2,
        step: {
          type: 'workflow',
          definitionId: childId,
          input: { n: '{{item}}', at: '{{index}}' },
        },
      },
    ]);
    const runId = await startRun(t.http, key, definitionId, { numbers: [3, 1, 4, 1, 5] });
    const run = await waitForRun(t.http, key, runId, 'COMPLETED');
    expect(run.output).toMatchObject({
      each: {
        results: [3, 1, 4, 1, 5].map((n, at) => ({ n, at, double: { doubled: n * 2 } })),
        failedItems: [],
      },
    });
    const children = await t.http
      .get(`/v1/workflow-runs?parentRunId=${runId}&pageSize=100`)
      .set('x-api-key', key);
    expect(children.body.data).toHaveLength(5);
    // Never more than two children alive at once: each started after an earlier one finished.
    const rows = await t.sql<{ created: Date; finished: Date }>(
      `SELECT created_at AS created, finished_at AS finished FROM workflow_runs
       WHERE parent_run_id = $1 ORDER BY created_at`,
      [runId],
    );
    for (const [i, row] of rows.entries()) {
      const alive = rows.filter((o, j) => j < i && o.finished > row.created).length;
      expect(alive).toBeLessThan(2);
    }
    const types = (await runEvents(t.http, key, runId)).map((e) => e.eventType);
    expect(types.filter((e) => e === 'CHILD_RUN_STARTED')).toHaveLength(5);
    expect(types.filter((e) => e === 'MAP_ITEM_COMPLETED')).toHaveLength(5);

    const unknown = await t.http
      .post('/v1/workflow-definitions')
      .set('x-api-key', key)
      .send({
        name: 'bad-map-child',
        version: '1',
        steps: [
          {
            type: 'map',
            name: 'each',
            items: 'numbers',
            step: { type: 'workflow', definitionId: '00000000-0000-4000-8000-000000000000' },
          },
        ],
      });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0]).toEqual({
      field: 'steps[0].step.definitionId',
      message: 'no such definition in this workspace',
    });
  });

  it('refuses a bad map step at definition time, naming the field', async () => {
    const cases: Array<[Step, string]> = [
      [{ type: 'map', name: 'm', step: { type: 'task', handler: 'noop' } }, 'steps[0].items'],
      [probeMap('x', { maxConcurrency: 0 }), 'steps[0].maxConcurrency'],
      [probeMap('x', { maxItems: 10_001 }), 'steps[0].maxItems'],
      [probeMap('x', { toleratedFailures: '120%' }), 'steps[0].toleratedFailures'],
      [probeMap('x', { toleratedFailures: -1 }), 'steps[0].toleratedFailures'],
      [probeMap('x', { step: { type: 'wait', durationMs: 1 } }), 'steps[0].step.type'],
      [probeMap('x', { step: { type: 'task' } }), 'steps[0].step.handler'],
      [probeMap('x', { step: { type: 'task', handler: 'noop', name: 'x' } }), 'steps[0].step.name'],
      [
        probeMap('x', { step: { type: 'task', handler: 'transform', config: {} } }),
        'steps[0].step.config.expression',
      ],
    ];
    for (const [step, field] of cases) {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', key)
        .send({ name: 'bad-map', version: '1', steps: [step] });
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      const fields = (res.body.error.details.errors as Array<{ field: string }>).map(
        (e) => e.field,
      );
      expect(fields).toContain(field);
    }
  });
});

describe('map steps across a crash', () => {
  let api: TestApp;
  let key: string;
  let hold: HoldServer;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    api = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    ({ key } = await createWorkspaceWithKey(api.http));
    hold = await startHoldServer();
  });

  afterAll(async () => {
    for (const s of services.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
    await hold.close();
    await api.close();
  });

  it('resumes on another executor after a SIGKILL mid-map, no item completed twice', async () => {
    // Items 0-4 answer at once (counted here); the others are held until after the crash.
    const fastHits = new Map<string, number>();
    const fast = http.createServer((req, res) => {
      fastHits.set(req.url ?? '', (fastHits.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => fast.listen(0, '127.0.0.1', resolve));
    const fastUrl = `http://127.0.0.1:${(fast.address() as AddressInfo).port}`;
    try {
      const urls = range(12).map((i) =>
        i < 5 ? `${fastUrl}/item/${i}` : `${hold.url}/hold/item/${i}`,
      );
      const definitionId = await createDefinition(api.http, key, [
        {
          type: 'map',
          name: 'fetch',
          items: 'urls',
          maxConcurrency: 3,
          step: { type: 'task', handler: 'http', config: { url: '{{item}}' } },
        },
      ]);
      const first = await startExecutorProcess(api.databaseUrl, services);
      const runId = await startRun(api.http, key, definitionId, { urls });
      await eventually(
        async () => {
          const [row] = await api.sql<{ n: string }>(
            `SELECT count(*) AS n FROM map_items WHERE run_id = $1 AND status = 'COMPLETED'`,
            [runId],
          );
          return Number(row.n) === 5 && hold.requests.length === 3;
        },
        20_000,
        'five items settled and three held',
      );
      first.child.kill('SIGKILL');
      await first.exited(10_000);
      hold.answerImmediately();
      await startExecutorProcess(api.databaseUrl, services);

      const run = await waitForRun(api.http, key, runId, 'COMPLETED', 30_000);
      const results = (run.output as { fetch: { results: Array<{ status: number }> } }).fetch
        .results;
      expect(results.map((r) => r.status)).toEqual(range(12).map(() => 200));
      expect(range(5).map((i) => fastHits.get(`/item/${i}`))).toEqual([1, 1, 1, 1, 1]);
      const completions = (await runEvents(api.http, key, runId))
        .filter((e) => e.eventType === 'MAP_ITEM_COMPLETED')
        .map((e) => Number(e.payload.itemIndex))
        .sort((a, b) => a - b);
      expect(completions).toEqual(range(12));
      // The three held items were executed twice (once per process), completed once.
      expect(range(12).map((i) => hold.hits(`/hold/item/${i}`).length)).toEqual([
        0, 0, 0, 0, 0, 2, 2, 2, 1, 1, 1, 1,
      ]);
    } finally {
      await new Promise<void>((resolve) => fast.close(() => resolve()));
    }
  });
});
