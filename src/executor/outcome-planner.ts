import type {
  BufferedSignalFilter,
  ClaimedStep,
  NextStep,
  OutcomePlan,
  RunChange,
} from '../queue/outcome-plan';
import type { NewRunEvent } from '../queue/run-events';
import {
  outputKeyOf,
  retryDelayMs,
  retryPolicyOf,
  type StepDefinition,
} from '../steps/step-definition';
import type { StepOutcome } from '../steps/step-executor';

/** A run may execute at most this many steps (loops through conditions); past it, it fails. */
export const MAX_STEPS_PER_RUN = 1000;

export interface PlanInput {
  claimed: ClaimedStep;
  /** The steps of the run's definition. */
  steps: readonly StepDefinition[];
  outcome: StepOutcome;
  /** Whether the recording worker continues the run with its next step itself. */
  continueHere: boolean;
  /** The time of recording, in milliseconds (durations and back-off timers count from it). */
  now: number;
  /** Makes the id of a step run this outcome creates. */
  newId: () => string;
  /** Attempts of a step of this type that sets no `retry.maxAttempts` (its descriptor's). */
  defaultMaxAttempts: (type: string) => number;
}

/**
 * The run's state machine, as one pure function: what a step's outcome writes (the step row, a next
 * step row, the run row, the events in order, the timer it sets), decided from the claimed step,
 * the definition and the outcome alone. The state is the claimed snapshot: nothing else writes a
 * run's state while one of its steps is RUNNING under a lease (the writer checks that it still is).
 */
export function planOutcome(input: PlanInput): OutcomePlan {
  const { claimed, outcome } = input;
  switch (outcome.kind) {
    case 'complete':
      return planComplete(input, outcome);
    case 'wait':
      return park(claimed, outcome.dueAt, 'WAITING', outcome.effects, outcome.takeBufferedSignal);
    case 'pause':
      return park(claimed, outcome.dueAt ?? null, 'PAUSED', outcome.effects);
    case 'fail':
      return planFail(input, outcome);
  }
}

function planComplete(
  input: PlanInput,
  outcome: Extract<StepOutcome, { kind: 'complete' }>,
): OutcomePlan {
  const { claimed, steps } = input;
  const state = {
    ...claimed.run.state,
    ...(outcome.statePatch ?? {}),
    [outputKeyOf(steps[claimed.stepIndex])]: outcome.output,
  };
  const stepsExecuted = claimed.run.stepsExecuted + 1;
  const nextIndex = outcome.next ?? claimed.stepIndex + 1;
  const events: NewRunEvent[] = [
    event(claimed, 'STEP_COMPLETED', {
      stepName: claimed.stepName,
      durationMs: Math.max(0, input.now - claimed.startedAt.getTime()),
    }),
  ];
  const plan = (next: NextStep | null, run: RunChange): OutcomePlan => ({
    step: { status: 'COMPLETED', output: outcome.output },
    next,
    run,
    events,
    effects: outcome.effects ?? null,
    wakeAt: null,
  });
  if (nextIndex >= steps.length) {
    events.push(event(claimed, 'WORKFLOW_COMPLETED', {}, null));
    return plan(null, {
      status: 'COMPLETED',
      state,
      currentIndex: claimed.stepIndex,
      stepsExecuted,
      output: state,
    });
  }
  if (stepsExecuted >= MAX_STEPS_PER_RUN) {
    // The run stops before `nextIndex`; a manual retry continues there, not at a done step.
    const error = `run exceeded the limit of ${MAX_STEPS_PER_RUN} steps`;
    events.push(event(claimed, 'WORKFLOW_FAILED', { error, stepName: claimed.stepName }, null));
    return plan(null, {
      status: 'FAILED',
      state,
      currentIndex: nextIndex,
      stepsExecuted,
      error,
      failedStep: claimed.stepName,
    });
  }
  const next = nextStep(input, nextIndex, events);
  return plan(next, { status: 'RUNNING', state, currentIndex: nextIndex, stepsExecuted });
}

function planFail(input: PlanInput, outcome: Extract<StepOutcome, { kind: 'fail' }>): OutcomePlan {
  const { claimed, steps } = input;
  const state = { ...claimed.run.state, ...(outcome.statePatch ?? {}) };
  const events: NewRunEvent[] = [
    event(claimed, 'STEP_FAILED', {
      stepName: claimed.stepName,
      error: outcome.error,
      attempt: claimed.attempt,
    }),
  ];
  const base = { events, effects: outcome.effects ?? null };
  const failed = steps[claimed.stepIndex];
  const policy = retryPolicyOf(failed, input.defaultMaxAttempts(failed.type));
  if (outcome.retryable && outcome.jumpTo === undefined && claimed.attempt < policy.maxAttempts) {
    const attempt = claimed.attempt + 1;
    const delayMs = retryDelayMs(policy, attempt);
    events.push(event(claimed, 'STEP_RETRYING', { stepName: claimed.stepName, attempt, delayMs }));
    return {
      ...base,
      step: { status: 'PENDING', attempt, delayMs, error: outcome.error },
      next: null,
      run: {
        status: 'RUNNING',
        state,
        currentIndex: claimed.stepIndex,
        stepsExecuted: claimed.run.stepsExecuted,
      },
      wakeAt: new Date(input.now + delayMs),
    };
  }
  const step = { status: 'FAILED', error: outcome.error } as const;
  if (outcome.jumpTo !== undefined) {
    return {
      ...base,
      step,
      next: nextStep(input, outcome.jumpTo, events),
      run: {
        status: 'RUNNING',
        state,
        currentIndex: outcome.jumpTo,
        stepsExecuted: claimed.run.stepsExecuted + 1,
      },
      wakeAt: null,
    };
  }
  events.push(
    event(claimed, 'WORKFLOW_FAILED', { error: outcome.error, stepName: claimed.stepName }, null),
  );
  return {
    ...base,
    step,
    next: null,
    run: {
      status: 'FAILED',
      state,
      currentIndex: claimed.stepIndex,
      stepsExecuted: claimed.run.stepsExecuted,
      error: outcome.error,
      failedStep: claimed.stepName,
    },
    wakeAt: null,
  };
}

/**
 * The step parks until a signal (WAITING) or a decision (PAUSED), or its timer (`dueAt`) if that
 * comes first: a wait's or an external event's (WAITING), an approval's timeout (PAUSED); unless,
 * with `takeBufferedSignal`, the writer finds a buffered signal for it (README "Signals").
 */
function park(
  claimed: ClaimedStep,
  dueAt: Date | null,
  status: 'WAITING' | 'PAUSED',
  effects: OutcomePlan['effects'] | undefined,
  takeBufferedSignal?: BufferedSignalFilter,
): OutcomePlan {
  return {
    step: { status: 'WAITING', dueAt, ...(takeBufferedSignal ? { takeBufferedSignal } : {}) },
    next: null,
    run: {
      status,
      state: claimed.run.state,
      currentIndex: claimed.stepIndex,
      stepsExecuted: claimed.run.stepsExecuted,
    },
    events: [],
    effects: effects ?? null,
    wakeAt: dueAt,
  };
}

/**
 * The step run for `index`. When the worker continues the run itself it is created already claimed,
 * and its STEP_STARTED is recorded with the outcome; otherwise it is queued for any executor.
 */
function nextStep(input: PlanInput, index: number, events: NewRunEvent[]): NextStep {
  const step = input.steps[index];
  const next: NextStep = {
    id: input.newId(),
    index,
    name: step.name,
    type: step.type,
    claimHere: input.continueHere,
  };
  if (next.claimHere) {
    events.push({
      runId: input.claimed.runId,
      workspaceId: input.claimed.workspaceId,
      stepRunId: next.id,
      type: 'STEP_STARTED',
      payload: { stepName: step.name, stepType: step.type, attempt: 1 },
    });
  }
  return next;
}

function event(
  claimed: ClaimedStep,
  type: NewRunEvent['type'],
  payload: Record<string, unknown>,
  stepRunId: string | null = claimed.id,
): NewRunEvent {
  return { runId: claimed.runId, workspaceId: claimed.workspaceId, stepRunId, type, payload };
}
