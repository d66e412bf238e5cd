import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppError, CapacityError, isDatabaseUnavailable, ServiceUnavailableError } from './errors';
import { ErrorPayload, sendError } from './error-response';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTH_ERROR',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Maps every error to the envelope. Typed AppErrors carry their own code; Nest's HTTP exceptions (unknown
 * routes, throttling) are translated; an error saying that the database cannot be reached, from any
 * layer (the guards' key lookup, a repository, a transaction), is a 503 the client may retry (design
 * §9); anything else is a 500 whose details go only to the log.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    sendError(res, this.toPayload(exception, req));
  }

  private toPayload(exception: unknown, req: Request): ErrorPayload {
    if (exception instanceof AppError) {
      return {
        status: exception.status,
        code: exception.code,
        message: exception.message,
        details: exception.details,
        retryAfterSeconds:
          exception instanceof ServiceUnavailableError || exception instanceof CapacityError
            ? exception.retryAfterSeconds
            : undefined,
      };
    }
    if (exception instanceof ThrottlerException) {
      return { status: 429, code: 'RATE_LIMIT_ERROR', message: 'too many requests' };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return { status, code: 'NOT_FOUND', message: `route ${req.method} ${req.path} not found` };
      }
      if (status < 500) {
        return {
          status,
          code: CODE_BY_STATUS[status] ?? 'HTTP_ERROR',
          message: String(exception.message).toLowerCase(),
        };
      }
    }
    if (isDatabaseUnavailable(exception)) {
      // One line per request at warn, without the stack: the cause is outside the service, and /ready
      // says the same to the orchestrator.
      this.logger.warn(
        { requestId: req.id, method: req.method, path: req.path, cause: describe(exception) },
        'database unavailable',
      );
      return this.toPayload(new ServiceUnavailableError('database unavailable'), req);
    }
    this.logger.error(
      { err: exception, requestId: req.id, method: req.method, path: req.path },
      'unhandled error',
    );
    return { status: 500, code: 'INTERNAL_ERROR', message: 'internal server error' };
  }
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return [e?.code, e?.message].filter((x) => typeof x === 'string' && x !== '').join(' ');
}
