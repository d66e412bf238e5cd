import type { NewRunEvent } from '../queue/run-events';
import { guardOutcome, MAX_ERROR_CHARS } from './outcome-guard';
import type { BufferedWork, ClaimedStep } from '../queue/outcome-plan';
import type { StepOutcome, StepTransaction } from '../steps/step-executor';

const LIMITS = { resultMaxBytes: 2048, stateMaxBytes: 4096 };
const STEP = { type: 'task', name: 'work', handler: 'noop' } as const;

function claimed(state: Record<string, unknown> = {}): ClaimedStep {
  return {
    id: 's',
    runId: 'r',
    workspaceId: 'w',
    stepIndex: 0,
    stepName: 'work',
    stepType: 'task',
    attempt: 1,
    wake: null,
    signal: null,
    startedAt: new Date(),
    claimDelaySeconds: null,
    run: {
      id: 'r',
      workspaceId: 'w',
      definitionId: 'd',
      state,
      stepsExecuted: 0,
      createdAt: new Date(),
    },
  };
}

const empty = (): BufferedWork => ({ events: [], writes: [] });

/** A transaction handle that only collects the events recorded through it. */
function collectingTx(): { tx: StepTransaction; events: Array<Record<string, unknown>> } {
  const events: Array<Record<string, unknown>> = [];
  const tx = {
    client: undefined as unknown as StepTransaction['client'],
    workspaceId: 'w',
    runId: 'r',
    stepRunId: 's',
    event: (type: NewRunEvent['type'], payload?: Record<string, unknown>) =>
      events.push({ type, ...payload }),
  };
  return { tx, events };
}

describe('guardOutcome', () => {
  it.each<[string, string, string]>([
    ['NUL', 'a\u0000b', 'a\ufffdb'],
    ['a lone surrogate', 'a\udfffb', 'a\ufffdb'],
    [
      'a long text',
      'e'.repeat(MAX_ERROR_CHARS + 10),
      `${'e'.repeat(MAX_ERROR_CHARS)}… (10 more characters)`,
    ],
  ])(
    'makes a failure with %s storable, keeping the rest of the outcome',
    (_name, error, stored) => {
      const outcome: StepOutcome = { kind: 'fail', error, retryable: true, jumpTo: 2 };
      expect(guardOutcome(claimed(), STEP, outcome, empty(), LIMITS)).toEqual({
        kind: 'fail',
        error: stored,
        retryable: true,
        jumpTo: 2,
      });
    },
  );

  it('returns a storable result unchanged', () => {
    const outcome: StepOutcome = { kind: 'complete', output: { text: 'fine 😀' }, next: 3 };
    expect(guardOutcome(claimed({ a: 1 }), STEP, outcome, empty(), LIMITS)).toBe(outcome);
    const wait: StepOutcome = { kind: 'wait', dueAt: null };
    expect(guardOutcome(claimed(), STEP, wait, empty(), LIMITS)).toBe(wait);
  });

  it('sanitises the events the step emitted and those its effects and writes record', async () => {
    const buffered = empty();
    buffered.events.push({
      type: 'LLM_CALL_FAILED',
      payload: { error: 'x\u0000', nested: ['\ud800'] },
    });
    buffered.writes.push((tx) =>
      Promise.resolve(tx.event('TOOL_CALL_EXECUTED', { error: '\u0000' })),
    );
    const outcome: StepOutcome = {
      kind: 'pause',
      effects: (tx) => Promise.resolve(tx.event('APPROVAL_REQUESTED', { prompt: 'p\udc00' })),
    };
    const guarded = guardOutcome(claimed(), STEP, outcome, buffered, LIMITS);
    expect(buffered.events[0].payload).toEqual({ error: 'x\ufffd', nested: ['\ufffd'] });
    const { tx, events } = collectingTx();
    await buffered.writes[0](tx);
    await guarded.effects!(tx);
    expect(events).toEqual([
      { type: 'TOOL_CALL_EXECUTED', error: '\ufffd' },
      { type: 'APPROVAL_REQUESTED', prompt: 'p\ufffd' },
    ]);
  });

  it.each<[string, StepOutcome, Record<string, unknown>, RegExp]>([
    [
      'an output over the result cap',
      { kind: 'complete', output: { s: 'x'.repeat(2048) } },
      {},
      /STEP_RESULT_MAX_BYTES/,
    ],
    [
      'state changes over the result cap',
      { kind: 'complete', output: {}, statePatch: { s: 'x'.repeat(2048) } },
      {},
      /STEP_RESULT_MAX_BYTES/,
    ],
    [
      'an output that makes the state too large',
      { kind: 'complete', output: { s: 'x'.repeat(1500) } },
      { old: 'y'.repeat(3000) },
      /RUN_STATE_MAX_BYTES/,
    ],
    [
      'a failure whose state changes make the state too large',
      {
        kind: 'fail',
        error: 'no',
        retryable: true,
        jumpTo: 0,
        statePatch: { s: 'x'.repeat(1500) },
      },
      { old: 'y'.repeat(3000) },
      /RUN_STATE_MAX_BYTES/,
    ],
    [
      'a NUL in an output key',
      { kind: 'complete', output: { ['\u0000']: 1 } },
      {},
      /^the step's result cannot be stored: output\.\ufffd: must not contain the NUL/,
    ],
  ])('fails the step without retries for %s', (_name, outcome, state, error) => {
    const guarded = guardOutcome(claimed(state), STEP, outcome, empty(), LIMITS);
    expect(guarded).toEqual({
      kind: 'fail',
      error: expect.stringMatching(error),
      retryable: false,
    });
  });

  it('lets a failure without state changes through whatever the state size', () => {
    const outcome: StepOutcome = { kind: 'fail', error: 'no', retryable: true };
    const guarded = guardOutcome(
      claimed({ old: 'y'.repeat(10_000) }),
      STEP,
      outcome,
      empty(),
      LIMITS,
    );
    expect(guarded).toEqual(outcome);
  });
});
