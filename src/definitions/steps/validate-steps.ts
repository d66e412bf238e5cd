import type { FieldError } from '../../common/errors';
import { expressionSyntaxError } from '../../common/jsonata';
import { linearRegexProblem } from '../../common/linear-regex';
import { MAX_TIMER_MS } from '../../common/timers';
import { validateDto } from '../../common/validation';
import { schemaPatternProblems } from '../../llm/json-schema';
import { STEP_DTO_BY_TYPE } from './step-dtos';
import { STEP_TYPES, type StepDefinition } from '../../steps/step-definition';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rules one step's own DTO cannot express (they depend on field combinations or on parsing). */
function typeSpecificErrors(step: Record<string, unknown>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, message: string) =>
    errors.push({ field: `${prefix}.${field}`, message });
  switch (step.type) {
    case 'wait': {
      if (step.durationMs !== undefined && step.until !== undefined) {
        add('until', 'use either durationMs or until, not both');
      }
      const until = step.until;
      if (typeof until === 'string' && !until.includes('{{')) {
        if (!ISO_TIMESTAMP.test(until) || Number.isNaN(Date.parse(until))) {
          add('until', 'must be an ISO 8601 timestamp or a {{placeholder}}');
        }
      }
      break;
    }
    case 'condition': {
      if (typeof step.expression === 'string') {
        const err = expressionSyntaxError(step.expression);
        if (err) add('expression', err);
      }
      break;
    }
    case 'task': {
      // The http handler's own timer; a templated value is clamped when the step runs.
      if (step.handler === 'http' && isPlainObject(step.config)) {
        const timeoutMs = step.config.timeoutMs;
        if (typeof timeoutMs === 'number' && timeoutMs > MAX_TIMER_MS) {
          add(
            'config.timeoutMs',
            `must not be greater than ${MAX_TIMER_MS} (the longest delay a timer can wait, about 24.8 days)`,
          );
        }
      }
      if (step.handler === 'transform') {
        const config = isPlainObject(step.config) ? step.config : {};
        if (typeof config.expression !== 'string') {
          add('config.expression', 'the transform handler needs a JSONata expression string');
        } else {
          const err = expressionSyntaxError(config.expression);
          if (err) add('config.expression', err);
        }
      }
      break;
    }
    case 'llm': {
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
      break;
    }
    default:
      break;
  }
  return errors;
}

/**
 * Validates a definition's steps: each against the DTO of its type, then the rules across steps. Field
 * paths name the offending element (`steps[2].handler`).
 */
export function validateSteps(raw: unknown[]): { steps: StepDefinition[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const names = new Map<string, number>();
  raw.forEach((step, i) => {
    const prefix = `steps[${i}]`;
    if (!isPlainObject(step)) {
      errors.push({ field: prefix, message: 'must be an object' });
      return;
    }
    const type = step.type;
    if (typeof type !== 'string' || !(STEP_TYPES as readonly string[]).includes(type)) {
      errors.push({ field: `${prefix}.type`, message: `must be one of ${STEP_TYPES.join(', ')}` });
      return;
    }
    const cls: new () => object = STEP_DTO_BY_TYPE[type as keyof typeof STEP_DTO_BY_TYPE];
    errors.push(...validateDto(cls, step, prefix).errors);
    errors.push(...typeSpecificErrors(step, prefix));
    if (typeof step.name === 'string') {
      if (names.has(step.name)) {
        errors.push({ field: `${prefix}.name`, message: `duplicate step name "${step.name}"` });
      } else {
        names.set(step.name, i);
      }
    }
  });
  // Jump targets must name a step of this definition.
  raw.forEach((step, i) => {
    if (!isPlainObject(step)) return;
    for (const field of ['then', 'else', 'regenerateFrom'] as const) {
      const target = step[field];
      if (typeof target === 'string' && !names.has(target)) {
        errors.push({ field: `steps[${i}].${field}`, message: `no step named "${target}"` });
      }
    }
  });
  return { steps: raw as StepDefinition[], errors };
}
