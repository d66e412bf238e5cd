import { ExpressionSandboxService } from '../src/expressions/expressions.module';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  createDefinition,
  runEvents,
  startRun,
  waitForRun,
  type RunView,
  type Step,
} from './support/workflows';

/**
 * Hostile JSONata in `transform` and `condition` steps: each class of runaway expression fails its own
 * step, at once and for good (attempt 1 only, though its retry policy allows three), while the process
 * keeps serving and another workspace's runs keep completing with a latency measured here.
 */
const HOSTILE: Array<{ name: string; expression: string; error: string }> = [
  {
    name: 'string doubling',
    expression: '($f := function($s){ $f($s & $s) }; $f("ab"))',
    error: 'expression built a string longer than 10000000 characters',
  },
  {
    name: 'string doubling in $reduce',
    expression: '$reduce([1..40], function($acc, $v){ $acc & $acc }, "xy")',
    error: 'expression built a string longer than 10000000 characters',
  },
  {
    name: 'array doubling with $append in a recursive function',
    expression: '($f := function($a){ $f($append($a, $a)) }; $f([1, 2]))',
    error: 'expression built a sequence longer than 1000000 items',
  },
  {
    name: 'deep recursion',
    expression: '($f := function($n){ 1 + $f($n + 1) }; $f(0))',
    error: 'expression exceeded the maximum depth',
  },
  {
    name: 'a tight infinite tail-recursive loop',
    expression: '($loop := function($n){ $loop($n + 1) }; $loop(0))',
    error: 'expression exceeded its time budget of 1000 ms',
  },
  {
    name: 'a huge range',
    expression: '$sum([1..100000000])',
    error: 'expression built a sequence longer than 1000000 items',
  },
  {
    name: 'one native operation that spins past the budget',
    expression: '$count($distinct([1..100000]))',
    error: 'expression exceeded its time budget of 1000 ms',
  },
  {
    name: 'a heap past the memory limit',
    expression: '$count([1..100].{"a": [1..500000]})',
    error: 'expression exceeded its memory limit of 32 MB',
  },
  {
    name: 'a result past the size limit',
    expression: '[1..100].{"text": $pad("", 20000)}',
    error: 'expression result exceeded the limit of 1048576 bytes',
  },
];

const RETRY = { maxAttempts: 3, initialDelayMs: 0 };

function hostileSteps(kind: 'transform' | 'condition', expression: string): Step[] {
  const after: Step = { type: 'task', name: 'after', handler: 'noop' };
  if (kind === 'transform') {
    return [
      { type: 'task', name: 'hostile', handler: 'transform', config: { expression }, retry: RETRY },
      after,
    ];
  }
  return [{ type: 'condition', name: 'hostile', expression, then: 'after', retry: RETRY }, after];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe('expression sandbox', () => {
  it('starts no worker in an API-only process (EXECUTOR_ENABLED=false)', async () => {
    const api = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    try {
      expect(api.app.get(ExpressionSandboxService).stats().workers).toBe(0);
    } finally {
      await api.close();
    }
  });

  let t: TestApp;
  let hostile: WorkspaceWithKey;
  let innocent: WorkspaceWithKey;

  beforeAll(async () => {
    // Two workers whatever the machine; a small heap so that the memory case is quick.
    t = await createTestApp({
      EXPRESSION_WORKERS: '2',
      EXPRESSION_MEMORY_MB: '32',
      EXPRESSION_TIMEOUT_MS: '1000',
    });
    hostile = await createWorkspaceWithKey(t.http);
    innocent = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fails each hostile run at attempt 1 with the limit it hit, while another workspace keeps completing runs', async () => {
    const simple = await createDefinition(t.http, innocent.key, [
      { type: 'task', name: 'sum', handler: 'transform', config: { expression: '$sum(items)' } },
    ]);
    const cases = HOSTILE.flatMap((c) =>
      (['transform', 'condition'] as const).map((kind) => ({ ...c, kind })),
    );
    const started = await Promise.all(
      cases.map(async (c) => {
        const def = await createDefinition(t.http, hostile.key, hostileSteps(c.kind, c.expression));
        return { ...c, runId: await startRun(t.http, hostile.key, def) };
      }),
    );

    // The other workspace: three clients, each starting a one-step transform run and waiting for it,
    // until every hostile run has ended (and at least 10 runs each).
    const latencies: number[] = [];
    let hostileDone = false;
    const client = async (c: number): Promise<void> => {
      for (let i = 0; !hostileDone || i < 10; i++) {
        const begun = Date.now();
        const id = await startRun(t.http, innocent.key, simple, { items: [c, i, 1] });
        const run = await waitForRun(t.http, innocent.key, id, ['COMPLETED', 'FAILED'], 30_000);
        expect(run.status).toBe('COMPLETED');
        expect(run.output?.sum).toEqual({ value: c + i + 1 });
        latencies.push(Date.now() - begun);
      }
    };
    const clients = Promise.all([0, 1, 2].map(client));
    const ended: Array<(typeof started)[number] & { run: RunView }> = [];
    try {
      for (const s of started) {
        const run = await waitForRun(t.http, hostile.key, s.runId, ['COMPLETED', 'FAILED'], 60_000);
        ended.push({ ...s, run });
      }
    } finally {
      hostileDone = true;
      await clients;
    }

    for (const e of ended) {
      const label = `${e.kind}: ${e.name}`;
      expect({ label, status: e.run.status, error: e.run.error }).toEqual({
        label,
        status: 'FAILED',
        error: e.error,
      });
      const events = await runEvents(t.http, hostile.key, e.runId);
      const stepEvents = events
        .filter((ev) => ev.eventType.startsWith('STEP_'))
        .map((ev) => [ev.eventType, ev.payload.attempt ?? null, ev.payload.error ?? null]);
      expect({ label, stepEvents }).toEqual({
        label,
        stepEvents: [
          ['STEP_STARTED', 1, null],
          ['STEP_FAILED', 1, e.error],
        ],
      });
    }

    // The innocent workspace's runs completed throughout; their p99 against a generous bound (one
    // evaluation is at most 1.5 s before its worker is killed, and the queue takes turns).
    expect(latencies.length).toBeGreaterThanOrEqual(30);
    expect(percentile(latencies, 99)).toBeLessThan(5000);

    // The process is still the same and still serves, the hostile workspace included.
    expect((await t.http.get('/live')).status).toBe(200);
    const after = await createDefinition(t.http, hostile.key, [
      { type: 'task', name: 'fine', handler: 'transform', config: { expression: '"fine"' } },
      { type: 'condition', name: 'check', expression: 'fine.value = "fine"' },
    ]);
    const run = await waitForRun(t.http, hostile.key, await startRun(t.http, hostile.key, after), [
      'COMPLETED',
      'FAILED',
    ]);
    expect(run.status).toBe('COMPLETED');
    expect(run.output).toEqual({ fine: { value: 'fine' }, check: { result: true, next: null } });
  }, 120_000);
});
