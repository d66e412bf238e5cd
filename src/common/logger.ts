import { LoggerService } from '@nestjs/common';
import { trace, TraceFlags } from '@opentelemetry/api';
import pino, { Logger as Pino } from 'pino';

/**
 * `trace_id`, `span_id` and `trace_flags` of the span active where a line is logged (a request, a
 * step execution, a webhook delivery), so that a log line leads to its trace. Without tracing no span
 * is ever active and this is one lookup that finds nothing.
 */
function traceFields(): object {
  const span = trace.getActiveSpan();
  // A new object each time: pino merges the line's own fields into it.
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return {
    trace_id: traceId,
    span_id: spanId,
    trace_flags: traceFlags & TraceFlags.SAMPLED ? '01' : '00',
  };
}

export function createPinoLogger(level: string): Pino {
  return pino({
    level,
    base: { service: 'workflow-orchestrator' },
    mixin: traceFields,
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: pino.stdSerializers.err },
    redact: [
      'req.headers["x-api-key"]',
      'req.headers["x-admin-token"]',
      'req.headers.authorization',
    ],
  });
}

/**
 * Routes Nest's logger (framework messages and `new Logger(ctx)` in our code) to pino, so that every line
 * is JSON. Nest passes the context as the last string argument.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    const args = [...rest];
    const context =
      args.length > 0 && typeof args[args.length - 1] === 'string' ? args.pop() : undefined;
    const extra = args.find((a): a is string => typeof a === 'string');
    if (message !== null && typeof message === 'object') {
      this.pino[level]({ context, ...message }, extra ?? '');
    } else {
      this.pino[level]({ context, ...(extra ? { stack: extra } : {}) }, String(message));
    }
  }
}
