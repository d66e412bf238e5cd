import { Injectable } from '@nestjs/common';
import { ExpressionLimitError } from '../../common/jsonata';
import type { ConditionStep } from '../../steps/step-definition';
import { ExpressionSandboxService } from '../../expressions/expressions.module';
import type { StepContext, StepExecutor, StepOutcome } from '../../steps/step-executor';

/**
 * JSONata truthiness ($boolean): false, 0, "", null, empty objects, functions and arrays with no truthy
 * member are false. Plain JavaScript would call `{}` and a lambda true.
 */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(truthy);
  if (typeof value === 'function') return false;
  if (value !== null && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (v._jsonata_lambda === true || v._jsonata_function === true) return false;
    return Object.keys(v).length > 0;
  }
  return Boolean(value);
}

/**
 * Evaluates the expression in the expression sandbox; a truthy result jumps to `then`, otherwise to
 * `else` (default: next). An evaluation stopped by a sandbox limit fails without retries: the same
 * expression on the same state would be stopped again.
 */
@Injectable()
export class ConditionStepExecutor implements StepExecutor {
  constructor(private readonly sandbox: ExpressionSandboxService) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as ConditionStep;
    let value: unknown;
    try {
      // The step's signal: on its timeout or a cancel the evaluation is dropped or its worker stopped.
      value = await this.sandbox.evaluate(
        ctx.workspaceId,
        step.expression,
        ctx.state,
        { attempt: ctx.attempt },
        ctx.abortSignal,
      );
    } catch (err) {
      const retryable = !(err instanceof ExpressionLimitError);
      return { kind: 'fail', error: (err as Error).message, retryable };
    }
    const result = truthy(value);
    const targetName = result ? step.then : step.else;
    const next =
      targetName !== undefined
        ? ctx.steps.findIndex((s) => s.name === targetName)
        : ctx.stepIndex + 1;
    const nextName = ctx.steps[next]?.name ?? null;
    return { kind: 'complete', output: { result, next: nextName }, next };
  }
}
