import { Module } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  createDefinition,
  eventually,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
  type RunView,
  type Step,
} from './support/workflows';
import { ISO_MS } from './support/formats';

/** Gates opened by the tests; `test.gate` fails until its gate is open. */
const openGates = new Set<string>();
/** Attempt numbers `test.gate` saw, per gate. */
const gateAttempts = new Map<string, number[]>();

/** A handler registered from a module of the embedding application, through the decorator. */
@TaskHandler('test.greet')
class GreetHandler {
  handle(ctx: TaskHandlerContext): Record<string, unknown> {
    return {
      greeting: `Hello ${String(ctx.config.name)}`,
      config: ctx.config,
      stateKeys: Object.keys(ctx.state).sort(),
      attempt: ctx.attempt,
      stepName: ctx.stepName,
      runId: ctx.runId,
      workspaceId: ctx.workspaceId,
      hasAbortSignal: ctx.signal instanceof AbortSignal && !ctx.signal.aborted,
    };
  }
}

@TaskHandler('test.gate')
class GateHandler {
  handle(ctx: TaskHandlerContext): Record<string, unknown> {
    const gate = String(ctx.config.gate);
    gateAttempts.set(gate, [...(gateAttempts.get(gate) ?? []), ctx.attempt]);
    if (!openGates.has(gate)) throw new Error(`gate ${gate} is closed`);
    return { passedOnAttempt: ctx.attempt };
  }
}

/** Never answers by itself: ends only when its AbortSignal fires. */
@TaskHandler('test.hang')
class HangHandler {
  handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }
}

@Module({ providers: [GreetHandler, GateHandler, HangHandler] })
class StepsTestHandlersModule {}

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback HTTP server for the `http` handler: `/echo` answers with what it received. */
async function startTarget(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      if (req.url?.startsWith('/status/')) {
        res.writeHead(Number(req.url.slice('/status/'.length)), { 'content-type': 'text/plain' });
        res.end('nope');
        return;
      }
      if (req.url === '/nul' || req.url === '/lone') {
        // JSON that parses, but that PostgreSQL cannot store.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url === '/nul' ? '{"a": "x\\u0000y"}' : '{"a": "x\\ud800y"}');
        return;
      }
      if (req.url === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-served-by': 'target' });
        res.end('plain words');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'target' });
      res.end(JSON.stringify({ method: entry.method, url: entry.url, body: entry.body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, received };
}

function ofType(events: EventView[], type: string): EventView[] {
  return events.filter((e) => e.eventType === type);
}

describe('step types', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;
  let target: Awaited<ReturnType<typeof startTarget>>;

  beforeAll(async () => {
    target = await startTarget();
    t = await createTestApp({}, { imports: [StepsTestHandlersModule] });
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => target?.server.close(resolve));
  });

  async function start(steps: Step[], input: Record<string, unknown> = {}): Promise<string> {
    const def = await createDefinition(t.http, ws.key, steps);
    return startRun(t.http, ws.key, def, input);
  }

  async function runToEnd(steps: Step[], input: Record<string, unknown> = {}): Promise<RunView> {
    const id = await start(steps, input);
    return waitForRun(t.http, ws.key, id, ['COMPLETED', 'FAILED', 'CANCELLED']);
  }

  interface StepRunView {
    stepIndex: number;
    stepName: string;
    status: string;
    attempt: number;
    output: Record<string, unknown> | null;
    error: string | null;
    startedAt: string | null;
    completedAt: string | null;
  }

  async function stepRuns(runId: string): Promise<StepRunView[]> {
    const res = await t.http.get(`/v1/workflow-runs/${runId}/steps`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return res.body.data as StepRunView[];
  }

  const resume = (runId: string, body: Record<string, unknown>) =>
    t.http.post(`/v1/workflow-runs/${runId}/resume`).set('x-api-key', ws.key).send(body);

  describe('task', () => {
    it('noop returns {} stored under the step name; the run output is the final state', async () => {
      const run = await runToEnd([{ type: 'task', name: 'nothing', handler: 'noop' }], { a: 1 });
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toEqual({ a: 1, nothing: {} });
    });

    it('transform evaluates JSONata against the state and stores the result under outputKey', async () => {
      const run = await runToEnd(
        [
          {
            type: 'task',
            name: 'totals',
            handler: 'transform',
            outputKey: 'summary',
            config: { expression: '{"total": $sum(items.(price * qty)), "count": $count(items)}' },
          },
          {
            type: 'task',
            name: 'scalar',
            handler: 'transform',
            config: { expression: 'summary.total * 2' },
          },
        ],
        {
          items: [
            { price: 2, qty: 3 },
            { price: 10, qty: 1 },
          ],
        },
      );
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toEqual({
        items: [
          { price: 2, qty: 3 },
          { price: 10, qty: 1 },
        ],
        summary: { total: 16, count: 2 },
        scalar: { value: 32 },
      });
    });

    it('http calls a URL with templated config and returns {status, headers, body}', async () => {
      const before = target.received.length;
      const run = await runToEnd(
        [
          {
            type: 'task',
            name: 'call',
            handler: 'http',
            config: {
              url: `${target.url}/echo/{{customer.id}}?q={{customer.name}}`,
              method: 'POST',
              headers: { 'x-customer': '{{customer.name}}' },
              body: {
                total: '{{order.total}}',
                note: 'order of {{customer.name}}',
                tags: '{{tags}}',
              },
            },
          },
        ],
        { customer: { id: 7, name: 'Ada' }, order: { total: 42.5 }, tags: ['a', 'b'] },
      );
      expect(run.status).toBe('COMPLETED');
      const request = target.received[before];
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/echo/7?q=Ada');
      expect(request.headers['x-customer']).toBe('Ada');
      expect(request.headers['content-type']).toBe('application/json');
      // A string that is exactly one placeholder keeps the value's type.
      expect(JSON.parse(request.body)).toEqual({
        total: 42.5,
        note: 'order of Ada',
        tags: ['a', 'b'],
      });
      expect(run.output?.call).toEqual({
        status: 200,
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-served-by': 'target',
        }),
        body: { method: 'POST', url: '/echo/7?q=Ada', body: request.body },
      });
    });

    it('http keeps a non-JSON answer as text', async () => {
      const run = await runToEnd([
        { type: 'task', name: 'call', handler: 'http', config: { url: `${target.url}/text` } },
      ]);
      expect(run.output?.call).toMatchObject({ status: 200, body: 'plain words' });
    });

    it.each([
      ['/nul', 'must not contain the NUL character (\\u0000)'],
      ['/lone', 'must be well-formed Unicode (unpaired surrogate escape)'],
    ])(
      'http fails the step at once, without retries, on an answer PostgreSQL cannot store (%s)',
      async (route, message) => {
        const run = await runToEnd([
          {
            type: 'task',
            name: 'call',
            handler: 'http',
            config: { url: `${target.url}${route}` },
            retry: { maxAttempts: 3, initialDelayMs: 0 },
          },
        ]);
        expect(run.status).toBe('FAILED');
        expect(run.error).toBe(`the step's result cannot be stored: output.body.a: ${message}`);
        const events = await runEvents(t.http, ws.key, run.id);
        expect(ofType(events, 'STEP_FAILED')).toHaveLength(1);
        expect(ofType(events, 'STEP_RETRYING')).toHaveLength(0);
      },
    );

    it('http fails the step on a non-2xx answer, and the retry policy applies', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'call',
          handler: 'http',
          config: { url: `${target.url}/status/503` },
          retry: { maxAttempts: 2, initialDelayMs: 0 },
        },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe(`HTTP 503 from ${target.url}/status/503`);
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_FAILED')).toHaveLength(2);
      expect(ofType(events, 'STEP_RETRYING')).toHaveLength(1);
    });

    it('fails a step whose config names a missing placeholder, naming it, without retries', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'call',
          handler: 'http',
          config: { url: `${target.url}/echo/{{customer.id}}` },
        },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('missing value for placeholder {{customer.id}}');
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_FAILED').map((e) => e.payload)).toEqual([
        expect.objectContaining({
          stepName: 'call',
          error: 'missing value for placeholder {{customer.id}}',
        }),
      ]);
      expect(ofType(events, 'STEP_RETRYING')).toEqual([]);
    });

    it('fails a step with an unknown handler at run time, without retries', async () => {
      const run = await runToEnd([
        { type: 'task', name: 'first', handler: 'noop' },
        { type: 'task', name: 'mystery', handler: 'not.registered', retry: { maxAttempts: 5 } },
        { type: 'task', name: 'never', handler: 'noop' },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('unknown task handler "not.registered"');
      expect(run.currentStepIndex).toBe(1);
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_FAILED')).toHaveLength(1);
      expect(ofType(events, 'STEP_RETRYING')).toEqual([]);
      expect(ofType(events, 'WORKFLOW_FAILED')).toHaveLength(1);
      const steps = await stepRuns(run.id);
      expect(steps.map((s) => [s.stepName, s.status, s.attempt])).toEqual([
        ['first', 'COMPLETED', 1],
        ['mystery', 'FAILED', 1],
      ]);
    });

    it('aborts a task past its timeoutMs and fails the attempt, then retries it', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'slow',
          handler: 'test.hang',
          timeoutMs: 300,
          retry: { maxAttempts: 2, initialDelayMs: 0 },
        },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('step timed out after 300 ms');
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_FAILED').map((e) => e.payload.attempt)).toEqual([1, 2]);
    });

    it('runs a handler that a test module registered through @TaskHandler', async () => {
      const run = await runToEnd(
        [
          {
            type: 'task',
            name: 'greet',
            handler: 'test.greet',
            config: { name: '{{person.first}}', fixed: 3 },
          },
        ],
        { person: { first: 'Grace' } },
      );
      expect(run.status).toBe('COMPLETED');
      expect(run.output?.greet).toEqual({
        greeting: 'Hello Grace',
        config: { name: 'Grace', fixed: 3 },
        stateKeys: ['person'],
        attempt: 1,
        stepName: 'greet',
        runId: run.id,
        workspaceId: ws.workspace.id,
        hasAbortSignal: true,
      });
    });
  });

  describe('wait', () => {
    it('with durationMs goes WAITING and continues once the duration has passed', async () => {
      const id = await start([
        { type: 'wait', name: 'pause', durationMs: 1500 },
        { type: 'task', name: 'after', handler: 'noop' },
      ]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(run.output).toEqual({
        pause: { endedBy: 'timer', at: expect.stringMatching(ISO_MS) },
        after: {},
      });
      const events = await runEvents(t.http, ws.key, id);
      const started = ofType(events, 'STEP_STARTED').find((e) => e.payload.stepName === 'pause')!;
      const completed = ofType(events, 'STEP_COMPLETED').find(
        (e) => e.payload.stepName === 'pause',
      )!;
      expect(
        Date.parse(completed.createdAt) - Date.parse(started.createdAt),
      ).toBeGreaterThanOrEqual(1450);
      expect(completed.payload.durationMs).toBeGreaterThanOrEqual(1450);
    });

    it('with until in the past continues at once, never WAITING', async () => {
      const run = await runToEnd([{ type: 'wait', name: 'pause', until: '2001-01-01T00:00:00Z' }]);
      expect(run.status).toBe('COMPLETED');
      expect(run.output?.pause).toEqual({ endedBy: 'timer', at: expect.stringMatching(ISO_MS) });
      const steps = await stepRuns(run.id);
      expect(steps.map((s) => s.status)).toEqual(['COMPLETED']);
    });

    it('with until in the future (from a placeholder) waits until that time', async () => {
      const resumeAt = new Date(Date.now() + 1500).toISOString();
      const id = await start([{ type: 'wait', name: 'pause', until: '{{schedule.at}}' }], {
        schedule: { at: resumeAt },
      });
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      const [pause] = await stepRuns(run.id);
      expect(Date.parse(pause.completedAt!)).toBeGreaterThanOrEqual(Date.parse(resumeAt) - 50);
    });

    it('with until naming a missing placeholder fails the step naming it', async () => {
      const run = await runToEnd([{ type: 'wait', name: 'pause', until: '{{schedule.at}}' }]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('missing value for placeholder {{schedule.at}}');
    });

    it('with neither field waits until resumed', async () => {
      const id = await start([
        { type: 'wait', name: 'hold' },
        { type: 'task', name: 'after', handler: 'noop' },
      ]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const res = await resume(id, { signalType: 'go-on' });
      expect(res.status).toBe(200);
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(run.output?.hold).toEqual({
        endedBy: 'signal',
        signalType: 'go-on',
        at: expect.stringMatching(ISO_MS),
      });
    });

    it('with durationMs ends early when resumed', async () => {
      const id = await start([{ type: 'wait', name: 'pause', durationMs: 3_600_000 }]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      expect((await resume(id, { signalType: 'skip' })).status).toBe(200);
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(run.output?.pause).toMatchObject({ endedBy: 'signal', signalType: 'skip' });
    });
  });

  describe('condition', () => {
    const branching = (expression: string): Step[] => [
      { type: 'condition', name: 'check', expression, then: 'big', else: 'small' },
      { type: 'task', name: 'skipped', handler: 'noop' },
      { type: 'task', name: 'big', handler: 'transform', config: { expression: '"big"' } },
      { type: 'task', name: 'small', handler: 'transform', config: { expression: '"small"' } },
    ];

    it('jumps to then when the expression is truthy', async () => {
      const run = await runToEnd(branching('amount > 100'), { amount: 500 });
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toEqual({
        amount: 500,
        check: { result: true, next: 'big' },
        big: { value: 'big' },
        small: { value: 'small' },
      });
      const steps = await stepRuns(run.id);
      expect(steps.map((s) => s.stepName)).toEqual(['check', 'big', 'small']);
    });

    it('jumps to else when the expression is falsy', async () => {
      const run = await runToEnd(branching('amount > 100'), { amount: 5 });
      expect(run.output).toEqual({
        amount: 5,
        check: { result: false, next: 'small' },
        small: { value: 'small' },
      });
      expect((await stepRuns(run.id)).map((s) => s.stepName)).toEqual(['check', 'small']);
    });

    it.each([
      ['an empty object', { meta: {} }, false],
      ['a non-empty object', { meta: { a: 0 } }, true],
      ['an empty string', { meta: '' }, false],
      ['zero', { meta: 0 }, false],
      ['null', { meta: null }, false],
      ['a missing path', {}, false],
      ['an array without truthy members', { meta: [0, '', false] }, false],
      ['an array with a truthy member', { meta: [0, 'x'] }, true],
    ])('casts %s the way JSONata $boolean does', async (_case, input, expected) => {
      const run = await runToEnd(branching('meta'), input);
      expect(run.status).toBe('COMPLETED');
      expect(run.output?.check).toEqual({ result: expected, next: expected ? 'big' : 'small' });
    });

    it('goes to the next step when the branch taken has no target', async () => {
      const run = await runToEnd(
        [
          { type: 'condition', name: 'check', expression: 'flag', then: 'last' },
          { type: 'task', name: 'middle', handler: 'noop' },
          { type: 'task', name: 'last', handler: 'noop' },
        ],
        { flag: false },
      );
      expect(run.output?.check).toEqual({ result: false, next: 'middle' });
      expect((await stepRuns(run.id)).map((s) => s.stepName)).toEqual(['check', 'middle', 'last']);
    });

    it('loops backwards until the expression turns false', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'inc',
          handler: 'transform',
          config: { expression: '{"n": ($exists(inc.n) ? inc.n : 0) + 1}' },
        },
        { type: 'condition', name: 'again', expression: 'inc.n < 3', then: 'inc' },
        { type: 'task', name: 'done', handler: 'noop' },
      ]);
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toEqual({
        inc: { n: 3 },
        again: { result: false, next: 'done' },
        done: {},
      });
      expect((await stepRuns(run.id)).map((s) => `${s.stepName}:${s.stepIndex}`)).toEqual([
        'inc:0',
        'again:1',
        'inc:0',
        'again:1',
        'inc:0',
        'again:1',
        'done:2',
      ]);
    });

    it('fails a run whose loop never exits once it has executed 1000 steps', async () => {
      const run = await waitForRun(
        t.http,
        ws.key,
        await start([{ type: 'condition', name: 'spin', expression: 'true', then: 'spin' }]),
        ['COMPLETED', 'FAILED'],
        60_000,
      );
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('run exceeded the limit of 1000 steps');
      const [row] = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM step_runs WHERE run_id = $1',
        [run.id],
      );
      expect(row.n).toBe(1000);
      const events = await runEvents(t.http, ws.key, run.id);
      expect(events.at(-1)).toMatchObject({
        eventType: 'WORKFLOW_FAILED',
        payload: expect.objectContaining({ error: 'run exceeded the limit of 1000 steps' }),
      });
    }, 90_000);
  });

  describe('external_event', () => {
    it('continues when resumed with the matching signalType; output {signalType, payload, receivedAt} under outputKey', async () => {
      const id = await start([
        {
          type: 'external_event',
          name: 'await-payment',
          signalType: 'payment.received',
          outputKey: 'payment',
        },
        {
          type: 'task',
          name: 'ship',
          handler: 'transform',
          config: { expression: 'payment.payload.amount' },
        },
      ]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const before = Date.now();
      const res = await resume(id, { signalType: 'payment.received', payload: { amount: 99 } });
      expect(res.status).toBe(200);
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(run.output).toEqual({
        payment: {
          signalType: 'payment.received',
          payload: { amount: 99 },
          receivedAt: expect.stringMatching(ISO_MS),
        },
        ship: { value: 99 },
      });
      const receivedAt = Date.parse((run.output?.payment as { receivedAt: string }).receivedAt);
      expect(receivedAt).toBeGreaterThanOrEqual(before - 1000);
      const events = await runEvents(t.http, ws.key, id);
      expect(ofType(events, 'SIGNAL_RECEIVED').map((e) => e.payload)).toEqual([
        expect.objectContaining({ signalType: 'payment.received', stepName: 'await-payment' }),
      ]);
    });

    it('answers 409 CONFLICT to a different signalType and keeps waiting', async () => {
      const id = await start([
        { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
      ]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const wrong = await resume(id, { signalType: 'payment.refunded' });
      expect(wrong.status).toBe(409);
      expect(wrong.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: expect.stringContaining('payment.received') },
      });
      expect((await getRun(t.http, ws.key, id)).status).toBe('WAITING');
      expect(ofType(await runEvents(t.http, ws.key, id), 'SIGNAL_RECEIVED')).toEqual([]);
      expect((await resume(id, { signalType: 'payment.received' })).status).toBe(200);
      await waitForRun(t.http, ws.key, id, 'COMPLETED');
    });

    it('without a signalType accepts any signal', async () => {
      const id = await start([{ type: 'external_event', name: 'anything' }]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      expect((await resume(id, { signalType: 'whatever' })).status).toBe(200);
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(run.output?.anything).toMatchObject({ signalType: 'whatever', payload: {} });
    });

    it("fails with 'timed out waiting for signal' once timeoutMs has passed", async () => {
      const id = await start([
        { type: 'external_event', name: 'await-payment', signalType: 'paid', timeoutMs: 700 },
        { type: 'task', name: 'never', handler: 'noop' },
      ]);
      await waitForRun(t.http, ws.key, id, 'WAITING');
      const run = await waitForRun(t.http, ws.key, id, 'FAILED');
      expect(run.error).toBe('timed out waiting for signal');
      const steps = await stepRuns(id);
      expect(steps.map((s) => [s.stepName, s.status, s.error])).toEqual([
        ['await-payment', 'FAILED', 'timed out waiting for signal'],
      ]);
      const events = await runEvents(t.http, ws.key, id);
      const started = ofType(events, 'STEP_STARTED')[0];
      const failed = ofType(events, 'STEP_FAILED')[0];
      expect(failed.payload.error).toBe('timed out waiting for signal');
      expect(Date.parse(failed.createdAt) - Date.parse(started.createdAt)).toBeGreaterThanOrEqual(
        650,
      );
      const late = await resume(id, { signalType: 'paid' });
      expect(late.status).toBe(409);
    });
  });

  describe('retries and back-off', () => {
    it('records STEP_FAILED then STEP_RETRYING with attempt numbers until an attempt succeeds ($attempt)', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'flaky',
          handler: 'transform',
          retry: { maxAttempts: 4, initialDelayMs: 0 },
          config: {
            expression:
              '$attempt < 3 ? $error("attempt " & $attempt & " failed") : {"okOn": $attempt}',
          },
        },
      ]);
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toEqual({ flaky: { okOn: 3 } });
      const events = await runEvents(t.http, ws.key, run.id);
      expect(
        events
          .filter((e) => e.eventType.startsWith('STEP_'))
          .map((e) => [e.eventType, e.payload.attempt, e.payload.error]),
      ).toEqual([
        ['STEP_STARTED', 1, undefined],
        ['STEP_FAILED', 1, 'attempt 1 failed'],
        ['STEP_RETRYING', 2, undefined],
        ['STEP_STARTED', 2, undefined],
        ['STEP_FAILED', 2, 'attempt 2 failed'],
        ['STEP_RETRYING', 3, undefined],
        ['STEP_STARTED', 3, undefined],
        ['STEP_COMPLETED', undefined, undefined],
      ]);
      const [step] = await stepRuns(run.id);
      expect(step).toMatchObject({ status: 'COMPLETED', attempt: 3, error: null });
    });

    it('fails the run with the $error message once maxAttempts are used up', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'doomed',
          handler: 'transform',
          retry: { maxAttempts: 3, initialDelayMs: 0 },
          config: { expression: '$error("card declined")' },
        },
        { type: 'task', name: 'never', handler: 'noop' },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe('card declined');
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_FAILED').map((e) => e.payload)).toEqual(
        [1, 2, 3].map((attempt) =>
          expect.objectContaining({ stepName: 'doomed', error: 'card declined', attempt }),
        ),
      );
      expect(ofType(events, 'STEP_RETRYING').map((e) => e.payload.attempt)).toEqual([2, 3]);
      expect(events.at(-1)).toMatchObject({ eventType: 'WORKFLOW_FAILED', stepRunId: null });
      expect((await stepRuns(run.id)).map((s) => s.stepName)).toEqual(['doomed']);
    });

    it('waits the back-off delay before each attempt: initialDelayMs, then times backoffMultiplier', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'slow-retry',
          handler: 'transform',
          retry: { maxAttempts: 3, initialDelayMs: 400, backoffMultiplier: 2, maxDelayMs: 10_000 },
          config: { expression: '$error("still broken")' },
        },
      ]);
      expect(run.status).toBe('FAILED');
      const events = await runEvents(t.http, ws.key, run.id);
      const retrying = ofType(events, 'STEP_RETRYING');
      expect(retrying.map((e) => e.payload.delayMs)).toEqual([400, 800]);
      const started = ofType(events, 'STEP_STARTED');
      expect(started.map((e) => e.payload.attempt)).toEqual([1, 2, 3]);
      // Each attempt starts no sooner than its delay after the retry was scheduled (generous bounds).
      for (const [i, delay] of [400, 800].entries()) {
        const gap = Date.parse(started[i + 1].createdAt) - Date.parse(retrying[i].createdAt);
        expect(gap).toBeGreaterThanOrEqual(delay - 50);
        expect(gap).toBeLessThan(delay + 10_000);
      }
    });

    it('caps the delay at maxDelayMs', async () => {
      const run = await runToEnd([
        {
          type: 'task',
          name: 'capped',
          handler: 'transform',
          retry: { maxAttempts: 3, initialDelayMs: 100, backoffMultiplier: 10, maxDelayMs: 300 },
          config: { expression: '$error("no")' },
        },
      ]);
      const events = await runEvents(t.http, ws.key, run.id);
      expect(ofType(events, 'STEP_RETRYING').map((e) => e.payload.delayMs)).toEqual([100, 300]);
    });
  });

  describe('retry of a FAILED run', () => {
    it('runs the failed step again with attempts from 1, keeping the outputs of earlier steps', async () => {
      const gate = `gate-${Date.now()}`;
      const id = await start([
        { type: 'task', name: 'first', handler: 'transform', config: { expression: '{"v": 1}' } },
        {
          type: 'task',
          name: 'guarded',
          handler: 'test.gate',
          config: { gate },
          retry: { maxAttempts: 2, initialDelayMs: 0 },
        },
        { type: 'task', name: 'last', handler: 'transform', config: { expression: 'first.v + 1' } },
      ]);
      const failed = await waitForRun(t.http, ws.key, id, 'FAILED');
      expect(failed.error).toBe(`gate ${gate} is closed`);
      expect(failed.currentStepIndex).toBe(1);
      expect(gateAttempts.get(gate)).toEqual([1, 2]);

      openGates.add(gate);
      const res = await t.http.post(`/v1/workflow-runs/${id}/retry`).set('x-api-key', ws.key);
      expect(res.status).toBe(200);
      const run = await waitForRun(t.http, ws.key, id, 'COMPLETED');
      expect(gateAttempts.get(gate)).toEqual([1, 2, 1]);
      expect(run.error).toBeNull();
      expect(run.output).toEqual({
        first: { v: 1 },
        guarded: { passedOnAttempt: 1 },
        last: { value: 2 },
      });
      const steps = await stepRuns(id);
      expect(steps.map((s) => [s.stepName, s.status, s.attempt])).toEqual([
        ['first', 'COMPLETED', 1],
        ['guarded', 'FAILED', 2],
        ['guarded', 'COMPLETED', 1],
        ['last', 'COMPLETED', 1],
      ]);
      const events = await runEvents(t.http, ws.key, id);
      expect(events.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'STEP_COMPLETED',
        'STEP_STARTED',
        'STEP_FAILED',
        'STEP_RETRYING',
        'STEP_STARTED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
        'STEP_RETRYING',
        'STEP_STARTED',
        'STEP_COMPLETED',
        'STEP_STARTED',
        'STEP_COMPLETED',
        'WORKFLOW_COMPLETED',
      ]);
      expect(events[9].payload).toMatchObject({ stepName: 'guarded', attempt: 1 });
      expect(events[10].payload).toMatchObject({ stepName: 'guarded', attempt: 1 });
    });
  });

  describe('http handler and private networks', () => {
    let strict: TestApp;
    let strictWs: WorkspaceWithKey;

    beforeAll(async () => {
      // Its own database, so that only this app's executor runs these steps.
      strict = await createTestApp(
        { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
        { databaseUrl: await createTestDatabase() },
      );
      strictWs = await createWorkspaceWithKey(strict.http);
    });
    afterAll(async () => {
      await strict?.close();
    });

    const port = () => new URL(target.url).port;
    it.each<[string, () => string, string]>([
      ['an IP literal (127.0.0.1)', () => `${target.url}/echo`, '127.0.0.1'],
      [
        'a name resolving to loopback (localhost)',
        () => `http://localhost:${port()}/echo`,
        'localhost',
      ],
      ['an IPv6 loopback literal', () => `http://[::1]:${port()}/echo`, '[::1]'],
      [
        'an IPv4-mapped loopback',
        () => `http://[::ffff:127.0.0.1]:${port()}/echo`,
        '[::ffff:7f00:1]',
      ],
      ['an IPv4-compatible loopback', () => `http://[::127.0.0.1]:${port()}/echo`, '[::7f00:1]'],
      ['a NAT64 address', () => `http://[64:ff9b::7f00:1]:${port()}/echo`, '[64:ff9b::7f00:1]'],
      [
        'a local-use NAT64 address',
        () => `http://[64:ff9b:1::a00:1]:${port()}/echo`,
        '[64:ff9b:1::a00:1]',
      ],
    ])(
      'refuses %s when WEBHOOK_ALLOW_PRIVATE_NETWORKS=false, without retries or a request, naming no resolved address',
      async (_case, url, host) => {
        const before = target.received.length;
        const def = await createDefinition(strict.http, strictWs.key, [
          { type: 'task', name: 'call', handler: 'http', config: { url: url() } },
        ]);
        const id = await startRun(strict.http, strictWs.key, def);
        const run = await waitForRun(strict.http, strictWs.key, id, ['COMPLETED', 'FAILED']);
        expect(run.status).toBe('FAILED');
        expect(run.error).toBe(`refusing to connect to ${host}: destination not allowed`);
        const events = await runEvents(strict.http, strictWs.key, id);
        expect(ofType(events, 'STEP_RETRYING')).toEqual([]);
        // The step's error, in the run and in its events, never says what a name resolved to.
        const seen = JSON.stringify({ run, events });
        if (host === 'localhost') expect(seen).not.toMatch(/127\.0\.0\.1|::1\b/);
        expect(target.received.length).toBe(before);
      },
    );
  });

  it('records the run as WAITING with the waiting step in progress, visible through the API', async () => {
    const id = await start([
      { type: 'task', name: 'first', handler: 'noop' },
      { type: 'external_event', name: 'parked' },
    ]);
    const run = await eventually(
      async () => {
        const r = await getRun(t.http, ws.key, id);
        return r.status === 'WAITING' ? r : undefined;
      },
      20_000,
      'the run to wait',
    );
    expect(run.currentStepIndex).toBe(1);
    await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', ws.key);
  });
});
