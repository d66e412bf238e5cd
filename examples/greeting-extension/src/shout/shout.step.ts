import { Injectable } from '@nestjs/common';
import type { StepContext, StepExecutor, StepOutcome } from 'workflow-orchestrator';

interface ShoutStep {
  text?: string;
  from?: string;
}

/**
 * Executes `shout` steps: the text, upper-cased, with an exclamation mark. A step type's executor
 * returns an outcome (complete, wait, pause or fail) and the service records it; it writes nothing
 * itself.
 */
@Injectable()
export class ShoutStepExecutor implements StepExecutor {
  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as unknown as ShoutStep;
    const text =
      step.from !== undefined ? ctx.state[step.from] : render(step.text ?? '', ctx.state);
    if (typeof text !== 'string') {
      return { kind: 'fail', error: `state.${step.from} is not a string`, retryable: false };
    }
    return { kind: 'complete', output: { text: `${text.toUpperCase()}!` } };
  }
}

/** `{{key}}` placeholders read from the top level of the state; values other than text as JSON. */
function render(template: string, state: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([\w-]+)\s*\}\}/g, (_, key: string) => {
    const value = state[key];
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  });
}
