import { Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NonRetryableError } from '../src/steps/step-executor';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { startHoldServer, type HoldServer } from './support/hold-server';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import {
  createDefinition,
  eventually,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
  type RunView,
  type Step,
} from './support/workflows';

/** The limits this file runs with (small, so that the payloads stay small). */
const RESULT_MAX = 65_536;
const STATE_MAX = 131_072;
const MAX_FAILURES = 3;
const LIMITS = {
  STEP_RESULT_MAX_BYTES: String(RESULT_MAX),
  RUN_STATE_MAX_BYTES: String(STATE_MAX),
  STEP_RECORD_MAX_FAILURES: String(MAX_FAILURES),
};
/** MAX_ERROR_CHARS of src/executor/outcome-guard.ts. */
const ERROR_CHARS = 4096;
const TIMER_MAX = 2_147_483_647;

/**
 * Texts the API refuses in any request body, so they can only be made inside the process, the way a
 * handler's exception or a provider's answer brings them.
 */
const POISONED_TEXTS: Record<string, { text: () => string; stored: string }> = {
  nul: { text: () => 'bad\u0000byte', stored: 'bad\ufffdbyte' },
  'lone high surrogate': { text: () => 'half \ud83d pair', stored: 'half \ufffd pair' },
  'lone low surrogate': { text: () => 'half \ude00 pair', stored: 'half \ufffd pair' },
  'reversed pair and NUL': { text: () => '\ude00\ud83d\u0000', stored: '\ufffd\ufffd\ufffd' },
  huge: {
    text: () => 'x'.repeat(200_000),
    stored: `${'x'.repeat(ERROR_CHARS)}… (${200_000 - ERROR_CHARS} more characters)`,
  },
  'huge and full of NULs': {
    text: () => '\u0000'.repeat(50_000),
    stored: `${'\ufffd'.repeat(ERROR_CHARS)}… (${50_000 - ERROR_CHARS} more characters)`,
  },
};

@TaskHandler('poison.throw')
class ThrowHandler {
  handle(ctx: TaskHandlerContext): Record<string, unknown> {
    const text = POISONED_TEXTS[String(ctx.config.text)].text();
    if (ctx.config.as === 'string') throw text; // eslint-disable-line @typescript-eslint/only-throw-error
    if (ctx.config.as === 'non-retryable') throw new NonRetryableError(text);
    throw new Error(text);
  }
}

/** Results a handler may return that PostgreSQL or JSON cannot hold as they are. */
const UNSTORABLE: Record<string, () => Record<string, unknown>> = {
  'a key with NUL': () => ({ ['a\u0000b']: 1 }),
  'a key with a lone surrogate': () => ({ nested: { ['k\ud800']: 'v' } }),
  'a BigInt': () => ({ n: BigInt(1) }),
  'nesting 300 levels deep': () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) deep = { d: deep };
    return deep;
  },
  'a cycle': () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    return cyclic;
  },
};

@TaskHandler('poison.output')
class OutputHandler {
  handle(ctx: TaskHandlerContext): Record<string, unknown> {
    const { kind, size } = ctx.config as { kind: string; size?: number };
    if (kind === 'ascii') return { blob: 'x'.repeat(size ?? 0) };
    if (kind === 'two-byte') return { blob: 'é'.repeat(size ?? 0) };
    return UNSTORABLE[kind]();
  }
}

/** Executions of `poison.count` per run. */
const executions = new Map<string, number>();

@TaskHandler('poison.count')
class CountHandler {
  handle(ctx: TaskHandlerContext): Record<string, unknown> {
    executions.set(ctx.runId, (executions.get(ctx.runId) ?? 0) + 1);
    return {};
  }
}

@Module({ providers: [ThrowHandler, OutputHandler, CountHandler] })
class PoisonHandlersModule {}

const uniqueModel = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;

function ofType(events: EventView[], type: string, stepName?: string): EventView[] {
  return events.filter(
    (e) => e.eventType === type && (stepName === undefined || e.payload.stepName === stepName),
  );
}

/** A loopback server that answers every request after `delayMs`. */
async function startSlowTarget(delayMs: number): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Runs before the in-process executor of the next block exists: executors here are real processes
 * that the test kills while they hold a step.
 */
describe('a step whose process dies while holding it', () => {
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
    await hold?.close();
    await api?.close();
  });

  const spawnExecutor = (): Promise<ServiceProcess> =>
    startExecutorProcess(api.databaseUrl, services, {
      STEP_RECORD_MAX_FAILURES: String(MAX_FAILURES),
    });

  it(`fails it after ${MAX_FAILURES} lost leases in a row instead of re-claiming it forever`, async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'deadly', handler: 'http', config: { url: `${hold.url}/hold/deadly` } },
    ]);
    const runId = await startRun(api.http, key, definitionId);
    for (let i = 1; i <= MAX_FAILURES; i++) {
      const executor = await spawnExecutor();
      await eventually(
        async () => hold.hits('/hold/deadly').length >= i,
        30_000,
        `execution ${i} of the deadly step`,
      );
      executor.child.kill('SIGKILL');
      await executor.exited(10_000);
    }
    await spawnExecutor();
    const run = await waitForRun(api.http, key, runId, 'FAILED', 30_000);
    const cause =
      `the step's outcome could not be recorded after ${MAX_FAILURES} tries: the process ` +
      'executing the step stopped before recording its outcome (its lease expired)';
    expect(run.error).toBe(cause);
    // Not executed again once the count was reached.
    expect(hold.hits('/hold/deadly')).toHaveLength(MAX_FAILURES);
    const events = await runEvents(api.http, key, runId);
    expect(ofType(events, 'STEP_STARTED')).toHaveLength(MAX_FAILURES);
    expect(ofType(events, 'STEP_FAILED').map((e) => e.payload.error)).toEqual([cause]);
    expect(ofType(events, 'WORKFLOW_FAILED').map((e) => e.payload)).toEqual([
      { error: cause, stepName: 'deadly' },
    ]);
  });
});

describe('poisoned step outcomes', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp(
      { ...fakeLlmEnv(openai, anthropic), ...LIMITS },
      { imports: [PoisonHandlersModule] },
    );
    ws = await createWorkspaceWithKey(t.http);
  });

  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  async function runToEnd(
    steps: Step[],
    input: Record<string, unknown> = {},
  ): Promise<{ runId: string; run: RunView; events: EventView[] }> {
    const definitionId = await createDefinition(t.http, ws.key, steps);
    const runId = await startRun(t.http, ws.key, definitionId, input);
    const run = await waitForRun(t.http, ws.key, runId, ['COMPLETED', 'FAILED']);
    return { runId, run, events: await runEvents(t.http, ws.key, runId) };
  }

  async function stepErrors(runId: string): Promise<Array<string | null>> {
    const res = await t.http.get(`/v1/workflow-runs/${runId}/steps`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ error: string | null }>).map((s) => s.error);
  }

  describe('error texts', () => {
    it.each(Object.keys(POISONED_TEXTS))(
      'records a handler error with %s, made storable, through the retry policy as usual',
      async (text) => {
        const { stored } = POISONED_TEXTS[text];
        const { runId, run, events } = await runToEnd([
          {
            type: 'task',
            name: 'thrower',
            handler: 'poison.throw',
            config: { text },
            retry: { maxAttempts: 2, initialDelayMs: 0 },
          },
        ]);
        expect(run.status).toBe('FAILED');
        expect(run.error).toBe(stored);
        expect(ofType(events, 'STEP_STARTED')).toHaveLength(2);
        expect(ofType(events, 'STEP_FAILED').map((e) => e.payload.error)).toEqual([stored, stored]);
        expect(ofType(events, 'WORKFLOW_FAILED').map((e) => e.payload.error)).toEqual([stored]);
        expect(await stepErrors(runId)).toEqual([stored]);
      },
    );

    it.each([
      ['a thrown string', 'string', 'nul'],
      ['a NonRetryableError', 'non-retryable', 'lone high surrogate'],
    ])('records %s holding poisoned text once, without retries', async (_name, as, text) => {
      const { run, events } = await runToEnd([
        {
          type: 'task',
          name: 'thrower',
          handler: 'poison.throw',
          config: { text, as },
          retry: { maxAttempts: as === 'string' ? 1 : 3 },
        },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe(POISONED_TEXTS[text].stored);
      expect(ofType(events, 'STEP_STARTED')).toHaveLength(1);
    });

    it('records provider errors with NUL or a lone surrogate in the llm events and the failure', async () => {
      const primary = uniqueModel('nul-model');
      const fallback = uniqueModel('surrogate-model');
      openai.script(primary, { status: 400, error: 'prompt has a \u0000 byte' });
      anthropic.script(fallback, { status: 400, error: 'half \ud83d pair' });
      const { run, events } = await runToEnd([
        {
          type: 'llm',
          name: 'write',
          model: `openai:${primary}`,
          fallbackModels: [`anthropic:${fallback}`],
          messages: [{ role: 'user', content: 'hi' }],
          retry: { maxAttempts: 2, initialDelayMs: 0 },
        },
      ]);
      expect(run.status).toBe('FAILED');
      // Two attempts, each calling both models once: executed as the retry policy says, no more.
      expect(openai.requestsFor(primary)).toHaveLength(2);
      expect(anthropic.requestsFor(fallback)).toHaveLength(2);
      expect(ofType(events, 'STEP_STARTED')).toHaveLength(2);
      const failed = ofType(events, 'LLM_CALL_FAILED').map((e) => String(e.payload.error));
      expect(failed).toHaveLength(4);
      // Provider texts lose their control characters when trimmed to the provider's message (the NUL
      // becomes a space); a lone surrogate is replaced at the outcome boundary.
      expect(failed.filter((e) => e.includes('prompt has a byte'))).toHaveLength(2);
      expect(failed.filter((e) => e.includes('half \ufffd pair'))).toHaveLength(2);
      expect(failed.join('')).not.toContain('\u0000');
      const reasons = ofType(events, 'LLM_FALLBACK_TRIGGERED').map((e) => e.payload.reason);
      expect(reasons).toEqual([
        expect.stringContaining('prompt has a byte'),
        expect.stringContaining('prompt has a byte'),
      ]);
      expect(run.error).toContain('prompt has a byte');
      expect(run.error).toContain('half \ufffd pair');
    });
  });

  describe('result and state caps', () => {
    it('completes a step whose result is just under STEP_RESULT_MAX_BYTES', async () => {
      const { run } = await runToEnd([
        {
          type: 'task',
          name: 'big',
          handler: 'poison.output',
          config: { kind: 'ascii', size: 60_000 },
        },
      ]);
      expect(run.status).toBe('COMPLETED');
    });

    it.each<[string, Record<string, unknown>]>([
      ['ASCII just over the cap', { kind: 'ascii', size: RESULT_MAX }],
      [
        'two-byte characters, under the cap in characters but over it in bytes',
        { kind: 'two-byte', size: 33_000 },
      ],
      ['eighty times the cap', { kind: 'ascii', size: 80 * RESULT_MAX }],
    ])('fails a step whose result is %s at once, naming the limit', async (_name, config) => {
      const { run, events } = await runToEnd([
        { type: 'task', name: 'big', handler: 'poison.output', config },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toMatch(
        new RegExp(
          `^the step's result is \\d+ bytes of JSON, over the limit of ${RESULT_MAX} bytes \\(STEP_RESULT_MAX_BYTES\\)$`,
        ),
      );
      // Retrying would produce the same result: one attempt of the default three.
      expect(ofType(events, 'STEP_STARTED')).toHaveLength(1);
    });

    it('fails the step that would push the run state over RUN_STATE_MAX_BYTES from a large input', async () => {
      const { run, events } = await runToEnd(
        [
          {
            type: 'task',
            name: 'more',
            handler: 'poison.output',
            config: { kind: 'ascii', size: 40_000 },
          },
        ],
        { blob: 'i'.repeat(100_000) },
      );
      expect(run.status).toBe('FAILED');
      expect(run.error).toMatch(
        new RegExp(
          `^the run state would be \\d+ bytes of JSON with this step's result, over the limit of ${STATE_MAX} bytes \\(RUN_STATE_MAX_BYTES\\)$`,
        ),
      );
      expect(ofType(events, 'STEP_STARTED')).toHaveLength(1);
    });

    it('fails the first step whose output makes the accumulated state too large', async () => {
      const steps = ['s1', 's2', 's3', 's4', 's5'].map((name) => ({
        type: 'task',
        name,
        handler: 'poison.output',
        config: { kind: 'ascii', size: 30_000 },
      }));
      const { run, events } = await runToEnd(steps);
      expect(run.status).toBe('FAILED');
      expect(run.error).toContain('RUN_STATE_MAX_BYTES');
      expect(ofType(events, 'STEP_COMPLETED').map((e) => e.payload.stepName)).toEqual([
        's1',
        's2',
        's3',
        's4',
      ]);
      expect(ofType(events, 'WORKFLOW_FAILED').map((e) => e.payload.stepName)).toEqual(['s5']);
    });

    it.each<[string, RegExp]>([
      [
        'a key with NUL',
        /^the step's result cannot be stored: output\.a\ufffdb: must not contain the NUL character/,
      ],
      [
        'a key with a lone surrogate',
        /^the step's result cannot be stored: output\.nested\.k\ufffd: must be well-formed Unicode/,
      ],
      ['a BigInt', /^the step's result cannot be stored: .*BigInt/],
      [
        'nesting 300 levels deep',
        /^the step's result cannot be stored: output(\.d)+: must not be nested deeper than 256 levels$/,
      ],
      [
        'a cycle',
        /^the step's result cannot be stored: output(\.self)+: must not be nested deeper than 256 levels$/,
      ],
    ])(
      'fails a step whose result holds %s at once, with a storable message',
      async (kind, error) => {
        const { run, events } = await runToEnd([
          { type: 'task', name: 'odd', handler: 'poison.output', config: { kind } },
        ]);
        expect(run.status).toBe('FAILED');
        expect(run.error).toMatch(error);
        expect(ofType(events, 'STEP_STARTED')).toHaveLength(1);
      },
    );
  });

  describe('durations', () => {
    const llm = { model: 'openai:any', messages: [{ role: 'user', content: 'hi' }] };
    it.each<[string, Step, string]>([
      [
        'a task timeoutMs',
        { type: 'task', handler: 'noop', timeoutMs: TIMER_MAX + 1 },
        'timeoutMs',
      ],
      [
        'an llm per-call timeoutMs',
        { type: 'llm', ...llm, timeoutMs: 31_536_000_000 },
        'timeoutMs',
      ],
      [
        'a condition timeoutMs',
        { type: 'condition', expression: 'true', timeoutMs: 2 ** 32 },
        'timeoutMs',
      ],
      [
        // A due time kept in PostgreSQL, bounded by APPROVAL_MAX_TIMEOUT_MS (30 days by default).
        'an approval timeoutMs over APPROVAL_MAX_TIMEOUT_MS',
        { type: 'approval', contentKey: 'x', timeoutMs: 2_592_000_001 },
        'timeoutMs',
      ],
      ['a wait timeoutMs', { type: 'wait', durationMs: 10, timeoutMs: 2 ** 31 }, 'timeoutMs'],
      [
        'an http handler config.timeoutMs',
        {
          type: 'task',
          handler: 'http',
          config: { url: 'http://127.0.0.1:9', timeoutMs: 2 ** 31 },
        },
        'config.timeoutMs',
      ],
      [
        'an external_event timeoutMs over a year',
        { type: 'external_event', timeoutMs: 31_536_000_001 },
        'timeoutMs',
      ],
    ])(
      'refuses %s above what can be honoured, naming the field, and stores nothing',
      async (_name, step, field) => {
        const before = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
        const res = await t.http
          .post('/v1/workflow-definitions')
          .set('x-api-key', ws.key)
          .send({
            name: `too-long-${randomBytes(3).toString('hex')}`,
            version: '1',
            steps: [{ name: 'slow', ...step }],
          });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        const errors = res.body.error.details.errors as Array<{ field: string; message: string }>;
        expect(errors).toEqual([
          {
            field: `steps[0].${field}`,
            message: expect.stringMatching(
              step.type === 'external_event'
                ? /31536000000/
                : step.type === 'approval'
                  ? /2592000000 \(APPROVAL_MAX_TIMEOUT_MS\)/
                  : /2147483647/,
            ),
          },
        ]);
        const after = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
        expect(after.body.data).toHaveLength((before.body.data as unknown[]).length);
      },
    );

    it('accepts the longest timer for in-process timeouts and a year (30 days for approvals) for due times kept in PostgreSQL', async () => {
      const { run } = await runToEnd([
        { type: 'task', name: 'patient', handler: 'noop', timeoutMs: TIMER_MAX },
        { type: 'condition', name: 'check', expression: 'true', timeoutMs: TIMER_MAX },
      ]);
      expect(run.status).toBe('COMPLETED');
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({
          name: `year-${randomBytes(3).toString('hex')}`,
          version: '1',
          steps: [
            { type: 'external_event', name: 'signal', timeoutMs: 31_536_000_000 },
            { type: 'wait', name: 'pause', durationMs: 31_536_000_000 },
            { type: 'approval', name: 'review', contentKey: 'x', timeoutMs: 2_592_000_000 },
          ],
        });
      expect(res.status).toBe(201);
    });

    it.each([2 ** 31, 31_536_000_000, 1e15])(
      'clamps a templated http config.timeoutMs of %d to the longest timer instead of timing out at once',
      async (timeoutMs) => {
        const target = await startSlowTarget(100);
        try {
          const { run } = await runToEnd(
            [
              {
                type: 'task',
                name: 'call',
                handler: 'http',
                config: { url: target.url, timeoutMs: '{{t}}' },
              },
            ],
            { t: timeoutMs },
          );
          expect(run.status).toBe('COMPLETED');
          expect(run.output?.call).toMatchObject({ status: 200, body: { ok: true } });
        } finally {
          await new Promise((resolve) => target.server.close(resolve));
        }
      },
    );
  });

  describe('an outcome the database refuses to record', () => {
    beforeAll(async () => {
      // Failure injection on the real database: completing a step named poisoned-* raises.
      await t.sql(`
        CREATE FUNCTION test_poison_completion() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.status = 'COMPLETED' AND NEW.step_name LIKE 'poisoned%' THEN
            RAISE EXCEPTION 'injected failure: step % cannot complete', NEW.step_name;
          END IF;
          RETURN NEW;
        END $$`);
      await t.sql(`
        CREATE TRIGGER test_poison_completion BEFORE UPDATE ON step_runs
        FOR EACH ROW EXECUTE FUNCTION test_poison_completion()`);
    });

    afterAll(async () => {
      await t.sql(`DROP TRIGGER IF EXISTS test_poison_completion ON step_runs`);
      await t.sql(`DROP FUNCTION IF EXISTS test_poison_completion()`);
    });

    const failure = (stepName: string) =>
      `the step's outcome could not be recorded after ${MAX_FAILURES} tries: ` +
      `injected failure: step ${stepName} cannot complete`;

    it(`fails a task step after ${MAX_FAILURES} tries, recorded like any failure, while runs beside it complete once`, async () => {
      const hook = await t.http
        .post('/v1/webhooks')
        .set('x-api-key', ws.key)
        .send({ url: 'https://127.0.0.1:9/hooks', events: ['workflow.failed'] });
      expect(hook.status).toBe(201);
      const poisoned = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'first', handler: 'noop' },
        { type: 'task', name: 'poisoned-task', handler: 'noop' },
      ]);
      const innocent = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'a', handler: 'noop' },
        { type: 'task', name: 'b', handler: 'noop' },
        { type: 'task', name: 'c', handler: 'noop' },
      ]);
      // Started together, so that their outcomes share the executor's batched statements.
      const [runId, ...innocentIds] = await Promise.all([
        startRun(t.http, ws.key, poisoned),
        ...Array.from({ length: 12 }, () => startRun(t.http, ws.key, innocent)),
      ]);

      const run = await waitForRun(t.http, ws.key, runId, 'FAILED');
      expect(run.error).toBe(failure('poisoned-task'));
      const events = await runEvents(t.http, ws.key, runId);
      expect(ofType(events, 'STEP_STARTED', 'first')).toHaveLength(1);
      expect(ofType(events, 'STEP_STARTED', 'poisoned-task')).toHaveLength(MAX_FAILURES);
      expect(ofType(events, 'STEP_FAILED').map((e) => e.payload)).toEqual([
        { stepName: 'poisoned-task', error: failure('poisoned-task'), attempt: 1 },
      ]);
      expect(ofType(events, 'WORKFLOW_FAILED').map((e) => e.payload)).toEqual([
        { error: failure('poisoned-task'), stepName: 'poisoned-task' },
      ]);
      expect(await stepErrors(runId)).toEqual([null, failure('poisoned-task')]);
      const deliveries = await t.sql<{ body: { data: Record<string, unknown> } }>(
        `SELECT body FROM webhook_deliveries WHERE run_id = $1 AND event_type = 'workflow.failed'`,
        [runId],
      );
      expect(deliveries.map((d) => d.body.data)).toEqual([
        expect.objectContaining({
          status: 'FAILED',
          error: failure('poisoned-task'),
          failedStep: 'poisoned-task',
        }),
      ]);

      for (const id of innocentIds) {
        const done = await waitForRun(t.http, ws.key, id, 'COMPLETED');
        expect(done.error).toBeNull();
        const started = ofType(await runEvents(t.http, ws.key, id), 'STEP_STARTED');
        expect(started.map((e) => e.payload.stepName)).toEqual(['a', 'b', 'c']);
      }
      await t.http.delete(`/v1/webhooks/${hook.body.data.id}`).set('x-api-key', ws.key);
    });

    it('fails only the refused outcome of a batched statement: the outcomes written with it are recorded once', async () => {
      // Every run wakes at the same instant, so the executor claims them in one statement and their
      // next steps finish in one turn of the event loop: one ADVANCE_RUNS statement for all of them.
      const until = new Date(Date.now() + 2000).toISOString();
      const poisoned = await createDefinition(t.http, ws.key, [
        { type: 'wait', name: 'w', until },
        { type: 'task', name: 'poisoned-step', handler: 'noop' },
        { type: 'task', name: 'end', handler: 'noop' },
      ]);
      const innocent = await createDefinition(t.http, ws.key, [
        { type: 'wait', name: 'w', until },
        { type: 'task', name: 'count', handler: 'poison.count' },
        { type: 'task', name: 'end', handler: 'noop' },
      ]);
      const [runId, ...innocentIds] = await Promise.all([
        startRun(t.http, ws.key, poisoned),
        ...Array.from({ length: 15 }, () => startRun(t.http, ws.key, innocent)),
      ]);
      const run = await waitForRun(t.http, ws.key, runId, 'FAILED');
      expect(run.error).toBe(failure('poisoned-step'));
      for (const id of innocentIds) {
        await waitForRun(t.http, ws.key, id, 'COMPLETED');
        expect(executions.get(id)).toBe(1);
        const started = ofType(await runEvents(t.http, ws.key, id), 'STEP_STARTED');
        expect(started.map((e) => e.payload.stepName)).toEqual(['w', 'count', 'end']);
      }
    });

    it(`fails an llm step after ${MAX_FAILURES} tries and keeps the cost record of every call billed`, async () => {
      const model = uniqueModel('billed');
      openai.script(model, { text: 'an answer', inputTokens: 100, outputTokens: 20 });
      const { runId, run, events } = await runToEnd([
        {
          type: 'llm',
          name: 'poisoned-llm',
          model: `openai:${model}`,
          messages: [{ role: 'user', content: 'hello' }],
        },
      ]);
      expect(run.status).toBe('FAILED');
      expect(run.error).toBe(failure('poisoned-llm'));
      expect(openai.requestsFor(model)).toHaveLength(MAX_FAILURES);
      expect(ofType(events, 'STEP_STARTED')).toHaveLength(MAX_FAILURES);
      const cost = await t.http.get(`/v1/workflow-runs/${runId}/cost`).set('x-api-key', ws.key);
      expect(cost.status).toBe(200);
      const calls = cost.body.data.calls as Array<Record<string, unknown>>;
      expect(calls).toHaveLength(MAX_FAILURES);
      for (const call of calls) {
        expect(call).toMatchObject({
          stepName: 'poisoned-llm',
          inputTokens: 100,
          outputTokens: 20,
        });
      }
    });
  });
});
