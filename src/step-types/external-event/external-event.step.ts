import { Injectable } from '@nestjs/common';
import type { ExternalEventStep } from '../../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../../steps/step-executor';

/**
 * Parks the run WAITING for `resume` (or a signal, POST …/signals) with the matching signal type
 * (checked by the API), unless a signal of that type was buffered for the run before: the oldest one
 * then wakes the step at once, taken when the wait is recorded under the run's lock, so that a signal
 * buffered while the step was parking is never missed (README "Signals"). Past `timeoutMs` (a due time
 * in Postgres) the step fails.
 */
@Injectable()
export class ExternalEventStepExecutor implements StepExecutor {
  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as ExternalEventStep;
    if (ctx.wake === 'signal' && ctx.signal) {
      return {
        kind: 'complete',
        output: {
          signalType: ctx.signal.signalType,
          payload: ctx.signal.payload,
          receivedAt: ctx.signal.receivedAt,
        },
      };
    }
    if (ctx.wake === 'timer') {
      return { kind: 'fail', error: 'timed out waiting for signal', retryable: true };
    }
    const dueAt = step.timeoutMs !== undefined ? new Date(Date.now() + step.timeoutMs) : null;
    return { kind: 'wait', dueAt, takeBufferedSignal: { signalType: step.signalType ?? null } };
  }
}
