import { ValidationPipe, ValidationError as ClassValidatorError } from '@nestjs/common';
import { FieldError, ValidationError } from './errors';

/** Flattens class-validator's tree into `[{field, message}]` with paths like `steps[2].handler`. */
export function flattenValidationErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const err of errors) {
    const field = /^\d+$/.test(err.property)
      ? `${parent}[${err.property}]`
      : parent
        ? `${parent}.${err.property}`
        : err.property;
    for (const [rule, message] of Object.entries(err.constraints ?? {})) {
      out.push({ field, message: rule === 'whitelistValidation' ? 'is not allowed' : message });
    }
    if (err.children?.length) out.push(...flattenValidationErrors(err.children, field));
  }
  return out;
}

/** The global pipe: unknown fields rejected, payloads transformed to DTO classes, errors in the envelope. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationError(flattenValidationErrors(errors)),
  });
}
