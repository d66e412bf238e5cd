import type { FieldError } from '../common/errors';
import type { AppConfig } from '../config/app-config';
import { validateDto } from '../common/validation';
import type { StepDefinition } from './step-definition';
import type { StepTypeDescriptor } from './step-type';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates a definition's steps against the registered step types: each against the DTO and the
 * check of its type (given the service's `config`, for its limits), then the rules across steps.
 * Field paths name the offending element (`steps[2].handler`).
 */
export function validateSteps(
  raw: unknown[],
  stepTypes: readonly StepTypeDescriptor[],
  config?: AppConfig,
): { steps: StepDefinition[]; errors: FieldError[] } {
  const byType = new Map(stepTypes.map((d) => [d.type, d]));
  const errors: FieldError[] = [];
  const names = new Map<string, number>();
  raw.forEach((step, i) => {
    const prefix = `steps[${i}]`;
    if (!isPlainObject(step)) {
      errors.push({ field: prefix, message: 'must be an object' });
      return;
    }
    const descriptor = typeof step.type === 'string' ? byType.get(step.type) : undefined;
    if (!descriptor) {
      errors.push({
        field: `${prefix}.type`,
        message: `must be one of ${[...byType.keys()].join(', ')}`,
      });
      return;
    }
    errors.push(...validateDto(descriptor.dto, step, prefix).errors);
    descriptor.check?.(
      step,
      (field, message) => errors.push({ field: `${prefix}.${field}`, message }),
      config,
    );
    if (typeof step.name === 'string') {
      if (names.has(step.name)) {
        errors.push({ field: `${prefix}.name`, message: `duplicate step name "${step.name}"` });
      } else {
        names.set(step.name, i);
      }
    }
  });
  // Jump targets must name a step of this definition. Every type's jump fields are looked for on
  // every step: one on a step of another type is reported here as well as refused by its DTO.
  const jumpFields = [...new Set(stepTypes.flatMap((d) => d.jumpFields ?? []))];
  raw.forEach((step, i) => {
    if (!isPlainObject(step)) return;
    for (const field of jumpFields) {
      const target = step[field];
      if (typeof target === 'string' && !names.has(target)) {
        errors.push({ field: `steps[${i}].${field}`, message: `no step named "${target}"` });
      }
    }
  });
  return { steps: raw as StepDefinition[], errors };
}
