/** Typed errors mapped to the response envelope by the global exception filter. */
export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], message?: string) {
    super(400, 'VALIDATION_ERROR', message ?? summarize(errors), { errors });
  }

  /** A single-field validation failure. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class AuthError extends AppError {
  constructor(message: string) {
    super(401, 'AUTH_ERROR', message);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string) {
    super(404, 'NOT_FOUND', `${resource} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}

/**
 * A configured storage limit (README "Limits on stored data") that the request would pass: 413
 * PAYLOAD_TOO_LARGE for a value over its size limit, 409 CONFLICT for a workspace at its count limit.
 * `details` names the field (`errors`, like a validation error) and the limit with its value.
 */
export class LimitExceededError extends AppError {
  constructor(
    status: 409 | 413,
    readonly field: string,
    readonly limit: { name: string; value: number },
    message: string,
  ) {
    super(status, status === 413 ? 'PAYLOAD_TOO_LARGE' : 'CONFLICT', `${field}: ${message}`, {
      errors: [{ field, message }],
      limit,
    });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}

function summarize(errors: FieldError[]): string {
  if (errors.length === 0) return 'invalid request';
  const first = errors[0];
  const text = first.field ? `${first.field}: ${first.message}` : first.message;
  return errors.length === 1 ? text : `${text} (and ${errors.length - 1} more)`;
}

/** Postgres unique_violation, raised by a concurrent duplicate insert. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.code ?? e?.driverError?.code;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}
