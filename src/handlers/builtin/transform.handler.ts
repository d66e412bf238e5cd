import { evaluateExpression, ExpressionError } from '../../common/jsonata';
import { NonRetryableError } from '../../executor/step-executor';
import { TaskHandler, type TaskHandlerContext, type TaskHandlerImpl } from '../task-handler';

/**
 * Evaluates `config.expression` (JSONata) against the run state, `$attempt` bound to the attempt
 * number; `$error("msg")` fails the step. The result must be an object, or it is wrapped as `{value}`.
 */
@TaskHandler('transform')
export class TransformHandler implements TaskHandlerImpl {
  async handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    const expression = ctx.config.expression;
    if (typeof expression !== 'string') {
      throw new NonRetryableError('transform needs config.expression (a JSONata string)');
    }
    let result: unknown;
    try {
      result = await evaluateExpression(expression, ctx.state, { attempt: ctx.attempt });
    } catch (err) {
      throw new Error(err instanceof ExpressionError ? err.message : String(err), { cause: err });
    }
    if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
      return result as Record<string, unknown>;
    }
    return { value: result ?? null };
  }
}
