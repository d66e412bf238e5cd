import { ApprovalsModule } from '../approvals/approvals.module';
import { BudgetsModule } from '../budgets/budgets.module';
import { linearRegexProblem } from '../common/linear-regex';
import { CostsModule } from '../costs/costs.module';
import { HandlersModule } from '../handlers/handlers.module';
import type { StepTypeDescriptor } from '../steps/step-type';
import { schemaPatternProblems } from './json-schema';
import { LlmStepDto } from './llm-step.dto';
import { LlmStepExecutor } from './llm.step';
import { LlmModule } from './llm.module';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `llm` (design §5): guardrail patterns and jsonSchema patterns must run on the linear-time engine,
 * tools take object schemas under unique names. `timeoutMs` limits each call, not the step.
 */
export const llmStepType: StepTypeDescriptor = {
  type: 'llm',
  dto: LlmStepDto,
  check(step, add) {
    const guardrails = isPlainObject(step.guardrails) ? step.guardrails : {};
    for (const list of ['blockedPatterns', 'requiredPatterns'] as const) {
      const patterns = guardrails[list];
      if (!Array.isArray(patterns)) continue;
      patterns.forEach((p, j) => {
        const err = typeof p === 'string' ? linearRegexProblem(p) : undefined;
        if (err) add(`guardrails.${list}[${j}]`, err);
      });
    }
    const schemaPatterns = schemaPatternProblems(guardrails.jsonSchema, 'guardrails.jsonSchema');
    schemaPatterns.forEach(({ path, problem }) => add(path, problem));
    if (Array.isArray(step.tools)) {
      const seen = new Set<string>();
      step.tools.forEach((tool: unknown, j) => {
        if (!isPlainObject(tool)) return;
        const params = tool.parameters;
        if (isPlainObject(params) && params.type !== undefined && params.type !== 'object') {
          add(`tools[${j}].parameters`, 'must be a JSON Schema of type "object"');
        }
        if (typeof tool.name === 'string') {
          if (seen.has(tool.name)) add(`tools[${j}].name`, `duplicate tool name "${tool.name}"`);
          seen.add(tool.name);
        }
      });
    }
  },
  defaultMaxAttempts: 3,
  ownsTimeout: true,
  executor: LlmStepExecutor,
  imports: [LlmModule, HandlersModule, CostsModule, BudgetsModule, ApprovalsModule],
};
