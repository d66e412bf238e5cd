import { Injectable } from '@nestjs/common';
import { renderString, TemplateError } from '../../common/templates';
import type { WaitStep } from '../../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../../steps/step-executor';

/**
 * Parks the run WAITING until a due time kept in Postgres (`durationMs` from the first execution, or
 * `until`), or until resumed when neither is given. A resume ends the wait early.
 */
@Injectable()
export class WaitStepExecutor implements StepExecutor {
  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as WaitStep;
    if (ctx.wake === 'timer') {
      return { kind: 'complete', output: { endedBy: 'timer', at: new Date().toISOString() } };
    }
    if (ctx.wake === 'signal' && ctx.signal) {
      return {
        kind: 'complete',
        output: { endedBy: 'signal', signalType: ctx.signal.signalType, at: ctx.signal.receivedAt },
      };
    }
    let dueAt: Date | null = null;
    if (step.durationMs !== undefined) {
      dueAt = new Date(Date.now() + step.durationMs);
    } else if (step.until !== undefined) {
      let text: string;
      try {
        text = renderString(step.until, ctx.state);
      } catch (err) {
        if (err instanceof TemplateError)
          return { kind: 'fail', error: err.message, retryable: false };
        throw err;
      }
      const ms = Date.parse(text);
      if (Number.isNaN(ms)) {
        return {
          kind: 'fail',
          error: `until "${text}" is not an ISO 8601 timestamp`,
          retryable: false,
        };
      }
      dueAt = new Date(ms);
    }
    if (dueAt !== null && dueAt.getTime() <= Date.now()) {
      return { kind: 'complete', output: { endedBy: 'timer', at: new Date().toISOString() } };
    }
    return { kind: 'wait', dueAt };
  }
}
