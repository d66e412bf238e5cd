import { Injectable } from '@nestjs/common';
import { evaluateExpression } from '../../common/jsonata';
import type { ConditionStep } from '../../definitions/steps/step-types';
import {
  StepExecutorFor,
  type StepContext,
  type StepExecutor,
  type StepOutcome,
} from '../step-executor';

/** JSONata truthiness: empty arrays, empty strings, 0, null and false are false. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.some(truthy);
  return Boolean(value);
}

/** Evaluates the expression; a truthy result jumps to `then`, otherwise to `else` (default: next). */
@Injectable()
@StepExecutorFor('condition')
export class ConditionStepExecutor implements StepExecutor {
  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as ConditionStep;
    let value: unknown;
    try {
      value = await evaluateExpression(step.expression, ctx.state, { attempt: ctx.attempt });
    } catch (err) {
      return { kind: 'fail', error: (err as Error).message, retryable: true };
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
