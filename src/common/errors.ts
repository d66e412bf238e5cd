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

/** 403 FORBIDDEN: a cookie-authenticated change (or a console sign-in) from another site (design §12). */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
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
 * 422 IDEMPOTENCY_KEY_REUSED: an Idempotency-Key sent again with another request (method, path, body,
 * or API key for an answer that holds a secret) than the one it was first used for (README
 * "Idempotent requests"). `details.errors` names the header.
 */
export class IdempotencyKeyReusedError extends AppError {
  constructor(message: string) {
    super(422, 'IDEMPOTENCY_KEY_REUSED', message, {
      errors: [{ field: 'Idempotency-Key', message }],
    });
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

/**
 * Seconds a client is told to wait (`Retry-After`) when the database cannot be reached: about one
 * connection timeout, the time the service needs to notice that it is back.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export class ServiceUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS,
  ) {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}

/**
 * 429 RATE_LIMIT_ERROR for a cap on what a client holds open (live event streams) rather than on its
 * request budget; `details.limit` names the cap and its value, `Retry-After` says when to try again.
 */
export class CapacityError extends AppError {
  constructor(
    message: string,
    limit: { name: string; value: number },
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'RATE_LIMIT_ERROR', message, { limit });
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

/** Socket errors of a database that is down, restarting or unreachable. */
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a lost or refused session: class 08 (connection exception), 57P01-57P03 (administrator,
 * crash or start-up/shutdown), 53300 (too many connections), 3D000 (the database itself is gone).
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[1-3]|53300|3D000)$/;

/** pg and pg-pool raise these as plain errors, without a code. */
const UNREACHABLE_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
];

/**
 * Whether `err` says that the database could not be reached (rather than that a statement failed):
 * socket errors, refused or terminated sessions, pool connect timeouts, and any error PostgreSQL sent
 * with severity FATAL or PANIC (it ends the session: refused logins, shutdowns). Looks through
 * TypeORM's `driverError`, `cause` and the `errors` of an AggregateError (a refused connection to a
 * name with several addresses).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as {
    code?: unknown;
    severity?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof e.code === 'string') {
    if (UNREACHABLE_SOCKET_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.test(e.code)) return true;
  }
  if (e.severity === 'FATAL' || e.severity === 'PANIC') return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.includes(e.message)) return true;
  const inner = [e.driverError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  return inner.some((x) => x !== err && isDatabaseUnavailable(x, depth + 1));
}
