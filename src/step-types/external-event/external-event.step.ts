import { Injectable } from '@nestjs/common';
import type { ExternalEventStep } from '../../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../../steps/step-executor';

/**
 * Parks the run WAITING for `resume` with the matching signal type (checked by the API). Past
 * `timeoutMs` (a due time in Postgres) the step fails.
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
    return { kind: 'wait', dueAt };
  }
}
