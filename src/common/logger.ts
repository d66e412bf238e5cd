import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

export function createPinoLogger(level: string): Pino {
  return pino({
    level,
    base: { service: 'workflow-orchestrator' },
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
