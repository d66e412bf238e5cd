import { ExpressionError, ExpressionLimitError } from '../../common/jsonata';
import { NonRetryableError } from '../../steps/step-executor';
import { ExpressionSandboxService } from '../../expressions/expressions.module';
import { TaskHandler, type TaskHandlerContext, type TaskHandlerImpl } from '../task-handler';

/**
 * Evaluates `config.expression` (JSONata) against the run state, `$attempt` bound to the attempt
 * number; `$error("msg")` fails the step. The result must be an object, or it is wrapped as `{value}`.
 * It runs in the expression sandbox; an evaluation stopped by one of its limits fails the step without
 * retries, since the same expression on the same state would be stopped again.
 */
@TaskHandler('transform')
export class TransformHandler implements TaskHandlerImpl {
  constructor(private readonly sandbox: ExpressionSandboxService) {}

  async handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    const expression = ctx.config.expression;
    if (typeof expression !== 'string') {
      throw new NonRetryableError('transform needs config.expression (a JSONata string)');
    }
    let result: unknown;
    try {
      // The step's signal: on its timeout or a cancel the evaluation is dropped or its worker stopped.
      result = await this.sandbox.evaluate(
        ctx.workspaceId,
        expression,
        ctx.state,
        { attempt: ctx.attempt },
        ctx.signal,
      );
    } catch (err) {
      if (err instanceof ExpressionLimitError)
        throw new NonRetryableError(err.message, { cause: err });
      throw new Error(err instanceof ExpressionError ? err.message : String(err), { cause: err });
    }
    if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
      return result as Record<string, unknown>;
    }
    return { value: result ?? null };
  }
}
