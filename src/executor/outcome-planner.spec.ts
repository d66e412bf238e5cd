import type { ClaimedStep } from '../queue/outcome-plan';
import { BUILTIN_STEP_TYPES } from '../step-types/builtin-step-types';
import type { StepDefinition } from '../steps/step-definition';
import type { StepOutcome } from '../steps/step-executor';
import { MAX_STEPS_PER_RUN, planOutcome, type PlanInput } from './outcome-planner';

const STEPS: StepDefinition[] = [
  { type: 'task', name: 'fetch', handler: 'noop' },
  { type: 'task', name: 'draft', handler: 'noop', outputKey: 'text', retry: { maxAttempts: 3 } },
  { type: 'approval', name: 'review', contentKey: 'text' },
];
const STARTED = new Date('2026-11-24T10:00:00.000Z');
const NOW = STARTED.getTime() + 250;

function claimed(over: Partial<ClaimedStep> = {}, stepsExecuted = 1): ClaimedStep {
  return {
    id: 'step-1',
    runId: 'run-1',
    workspaceId: 'ws-1',
    stepIndex: 1,
    stepName: 'draft',
    stepType: 'task',
    attempt: 1,
    wake: null,
    signal: null,
    startedAt: STARTED,
    claimDelaySeconds: 0.01,
    run: {
      id: 'run-1',
      workspaceId: 'ws-1',
      definitionId: 'def-1',
      state: { fetch: { ok: true } },
      stepsExecuted,
      createdAt: STARTED,
    },
    ...over,
  };
}

function plan(outcome: StepOutcome, over: Partial<PlanInput> = {}) {
  let n = 0;
  return planOutcome({
    claimed: claimed(),
    steps: STEPS,
    outcome,
    continueHere: true,
    now: NOW,
    newId: () => `new-${++n}`,
    defaultMaxAttempts: (type) =>
      BUILTIN_STEP_TYPES.find((d) => d.type === type)!.defaultMaxAttempts,
    ...over,
  });
}

const ids = { runId: 'run-1', workspaceId: 'ws-1' };

describe('planOutcome', () => {
  describe('complete', () => {
    it('stores the output under the output key and goes on with the next step, claimed here', () => {
      const p = plan({ kind: 'complete', output: { words: 3 }, statePatch: { extra: 1 } });
      expect(p.step).toEqual({ status: 'COMPLETED', output: { words: 3 } });
      expect(p.run).toEqual({
        status: 'RUNNING',
        state: { fetch: { ok: true }, extra: 1, text: { words: 3 } },
        currentIndex: 2,
        stepsExecuted: 2,
      });
      expect(p.next).toEqual({
        id: 'new-1',
        index: 2,
        name: 'review',
        type: 'approval',
        claimHere: true,
      });
      expect(p.events).toEqual([
        {
          ...ids,
          stepRunId: 'step-1',
          type: 'STEP_COMPLETED',
          payload: { stepName: 'draft', durationMs: 250 },
        },
        {
          ...ids,
          stepRunId: 'new-1',
          type: 'STEP_STARTED',
          payload: { stepName: 'review', stepType: 'approval', attempt: 1 },
        },
      ]);
      expect(p.wakeAt).toBeNull();
      expect(p.effects).toBeNull();
    });

    it('queues the next step (no STEP_STARTED yet) when the worker does not continue the run', () => {
      const p = plan({ kind: 'complete', output: {} }, { continueHere: false });
      expect(p.next).toMatchObject({ index: 2, claimHere: false });
      expect(p.events.map((e) => e.type)).toEqual(['STEP_COMPLETED']);
    });

    it('jumps to the step the outcome names', () => {
      const p = plan({ kind: 'complete', output: {}, next: 0 });
      expect(p.next).toMatchObject({ index: 0, name: 'fetch' });
      expect(p.run).toMatchObject({ status: 'RUNNING', currentIndex: 0 });
    });

    it('completes the run after its last step, with the state as its output', () => {
      const p = plan(
        { kind: 'complete', output: { approved: true } },
        { claimed: claimed({ stepIndex: 2, stepName: 'review', stepType: 'approval' }) },
      );
      const state = { fetch: { ok: true }, review: { approved: true } };
      expect(p.next).toBeNull();
      expect(p.run).toEqual({
        status: 'COMPLETED',
        state,
        currentIndex: 2,
        stepsExecuted: 2,
        output: state,
      });
      expect(p.events.map((e) => [e.type, e.stepRunId])).toEqual([
        ['STEP_COMPLETED', 'step-1'],
        ['WORKFLOW_COMPLETED', null],
      ]);
    });

    it('fails the run at the step limit, positioned at the step it did not reach', () => {
      const p = plan(
        { kind: 'complete', output: {} },
        { claimed: claimed({}, MAX_STEPS_PER_RUN - 1) },
      );
      const error = `run exceeded the limit of ${MAX_STEPS_PER_RUN} steps`;
      expect(p.step.status).toBe('COMPLETED');
      expect(p.next).toBeNull();
      expect(p.run).toMatchObject({
        status: 'FAILED',
        currentIndex: 2,
        stepsExecuted: MAX_STEPS_PER_RUN,
        error,
        failedStep: 'draft',
      });
      expect(p.events[1]).toEqual({
        ...ids,
        stepRunId: null,
        type: 'WORKFLOW_FAILED',
        payload: { error, stepName: 'draft' },
      });
    });

    it('carries the outcome effects to the writer', () => {
      const effects = async () => undefined;
      expect(plan({ kind: 'complete', output: {}, effects }).effects).toBe(effects);
    });
  });

  describe('wait and pause', () => {
    it('parks the step on a timer, the run WAITING, and sets the timer', () => {
      const dueAt = new Date(NOW + 60_000);
      const p = plan({ kind: 'wait', dueAt });
      expect(p.step).toEqual({ status: 'WAITING', dueAt });
      expect(p.run).toEqual({
        status: 'WAITING',
        state: { fetch: { ok: true } },
        currentIndex: 1,
        stepsExecuted: 1,
      });
      expect(p.wakeAt).toBe(dueAt);
      expect(p.events).toEqual([]);
      expect(p.next).toBeNull();
    });

    it('parks the step until a signal', () => {
      const p = plan({ kind: 'wait', dueAt: null });
      expect(p.step).toEqual({ status: 'WAITING', dueAt: null });
      expect(p.wakeAt).toBeNull();
    });

    it('tells the writer which buffered signals end the wait at once, keeping its timeout', () => {
      const dueAt = new Date(NOW + 5000);
      const typed = plan({ kind: 'wait', dueAt, takeBufferedSignal: { signalType: 'paid' } });
      expect(typed.step).toEqual({
        status: 'WAITING',
        dueAt,
        takeBufferedSignal: { signalType: 'paid' },
      });
      expect(typed.run.status).toBe('WAITING');
      expect(typed.wakeAt).toBe(dueAt);
      const any = plan({ kind: 'wait', dueAt: null, takeBufferedSignal: { signalType: null } });
      expect(any.step).toEqual({
        status: 'WAITING',
        dueAt: null,
        takeBufferedSignal: { signalType: null },
      });
    });

    it('pauses the run for a decision, with the effects that make the request', () => {
      const effects = async () => undefined;
      const p = plan({ kind: 'pause', effects });
      expect(p.step).toEqual({ status: 'WAITING', dueAt: null });
      expect(p.run.status).toBe('PAUSED');
      expect(p.effects).toBe(effects);
      expect(p.wakeAt).toBeNull();
    });

    it("pauses the run until a decision or the approval's timeout, and sets the timer", () => {
      const dueAt = new Date(NOW + 5_000);
      const p = plan({ kind: 'pause', dueAt });
      expect(p.step).toEqual({ status: 'WAITING', dueAt });
      expect(p.run.status).toBe('PAUSED');
      expect(p.wakeAt).toBe(dueAt);
    });
  });

  describe('fail', () => {
    it('schedules the next attempt after the back-off while attempts remain', () => {
      const p = plan({ kind: 'fail', error: 'boom', retryable: true, statePatch: { tries: 1 } });
      expect(p.step).toEqual({ status: 'PENDING', attempt: 2, delayMs: 1000, error: 'boom' });
      expect(p.run).toEqual({
        status: 'RUNNING',
        state: { fetch: { ok: true }, tries: 1 },
        currentIndex: 1,
        stepsExecuted: 1,
      });
      expect(p.wakeAt).toEqual(new Date(NOW + 1000));
      expect(p.events).toEqual([
        {
          ...ids,
          stepRunId: 'step-1',
          type: 'STEP_FAILED',
          payload: { stepName: 'draft', error: 'boom', attempt: 1 },
        },
        {
          ...ids,
          stepRunId: 'step-1',
          type: 'STEP_RETRYING',
          payload: { stepName: 'draft', attempt: 2, delayMs: 1000 },
        },
      ]);
    });

    it('grows the back-off with the attempt', () => {
      const p = plan(
        { kind: 'fail', error: 'boom', retryable: true },
        { claimed: claimed({ attempt: 2 }) },
      );
      expect(p.step).toMatchObject({ status: 'PENDING', attempt: 3, delayMs: 2000 });
    });

    it('fails the step and the run when the attempts are used up', () => {
      const p = plan(
        { kind: 'fail', error: 'boom', retryable: true },
        { claimed: claimed({ attempt: 3 }) },
      );
      expect(p.step).toEqual({ status: 'FAILED', error: 'boom' });
      expect(p.run).toEqual({
        status: 'FAILED',
        state: { fetch: { ok: true } },
        currentIndex: 1,
        stepsExecuted: 1,
        error: 'boom',
        failedStep: 'draft',
      });
      expect(p.events.map((e) => e.type)).toEqual(['STEP_FAILED', 'WORKFLOW_FAILED']);
      expect(p.events[1]).toMatchObject({ stepRunId: null, payload: { error: 'boom' } });
      expect(p.wakeAt).toBeNull();
    });

    it('does not retry a failure a retry cannot fix', () => {
      const p = plan({ kind: 'fail', error: 'no handler', retryable: false });
      expect(p.step.status).toBe('FAILED');
      expect(p.run.status).toBe('FAILED');
    });

    it('uses the default attempts of the step type (1 for an approval)', () => {
      const p = plan(
        { kind: 'fail', error: 'boom', retryable: true },
        { claimed: claimed({ stepIndex: 2, stepName: 'review', stepType: 'approval' }) },
      );
      expect(p.step.status).toBe('FAILED');
    });

    it('continues at the jump target instead of failing the run, even with attempts left', () => {
      const p = plan(
        {
          kind: 'fail',
          error: 'rejected',
          retryable: true,
          jumpTo: 1,
          statePatch: { feedback: 'shorter' },
        },
        { claimed: claimed({ stepIndex: 2, stepName: 'review', stepType: 'approval' }) },
      );
      expect(p.step).toEqual({ status: 'FAILED', error: 'rejected' });
      expect(p.next).toEqual({
        id: 'new-1',
        index: 1,
        name: 'draft',
        type: 'task',
        claimHere: true,
      });
      expect(p.run).toEqual({
        status: 'RUNNING',
        state: { fetch: { ok: true }, feedback: 'shorter' },
        currentIndex: 1,
        stepsExecuted: 2,
      });
      expect(p.events.map((e) => [e.type, e.stepRunId])).toEqual([
        ['STEP_FAILED', 'step-1'],
        ['STEP_STARTED', 'new-1'],
      ]);
    });

    it('queues the jump target when the worker does not continue the run', () => {
      const p = plan(
        { kind: 'fail', error: 'rejected', retryable: false, jumpTo: 0 },
        { continueHere: false },
      );
      expect(p.next).toMatchObject({ index: 0, claimHere: false });
      expect(p.events.map((e) => e.type)).toEqual(['STEP_FAILED']);
    });
  });

  it('is pure: the same input plans the same writes, and the input is left as it was', () => {
    const input = claimed();
    const before = structuredClone(input);
    const outcome: StepOutcome = { kind: 'complete', output: { a: 1 } };
    const first = plan(outcome, { claimed: input });
    expect(plan(outcome, { claimed: input })).toEqual(first);
    expect(input).toEqual(before);
  });
});
