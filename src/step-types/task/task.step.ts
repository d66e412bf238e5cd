import { Injectable } from '@nestjs/common';
import { renderDeep, TemplateError } from '../../common/templates';
import type { TaskStep } from '../../steps/step-definition';
import { TaskHandlerRegistry } from '../../handlers/task-handler.registry';
import {
  NonRetryableError,
  type StepContext,
  type StepExecutor,
  type StepOutcome,
} from '../../steps/step-executor';

/** Runs the registered handler with the templated config; its object result is the step output. */
@Injectable()
export class TaskStepExecutor implements StepExecutor {
  constructor(private readonly handlers: TaskHandlerRegistry) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as TaskStep;
    const handler = this.handlers.get(step.handler);
    if (!handler) {
      return { kind: 'fail', error: `unknown task handler "${step.handler}"`, retryable: false };
    }
    let config: Record<string, unknown>;
    try {
      config = renderDeep(step.config ?? {}, ctx.state) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof TemplateError)
        return { kind: 'fail', error: err.message, retryable: false };
      throw err;
    }
    try {
      const output = await handler.handle({
        config,
        state: ctx.state,
        signal: ctx.abortSignal,
        attempt: ctx.attempt,
        runId: ctx.runId,
        workspaceId: ctx.workspaceId,
        stepName: step.name,
      });
      const isObject = output !== null && typeof output === 'object' && !Array.isArray(output);
      return { kind: 'complete', output: isObject ? output : { value: output ?? null } };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { kind: 'fail', error: message, retryable: !(err instanceof NonRetryableError) };
    }
  }
}
