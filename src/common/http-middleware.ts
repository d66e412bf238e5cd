import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import type { Logger as Pino } from 'pino';
import { sendError } from './error-response';
import { iJsonProblem } from './i-json';
import { jsonProblem } from './json-safety';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id: the client's `X-Request-Id` when well formed, else a new UUID (requestId()). */
    id: string;
    /** The JSON body's bytes, held only while the body is checked (jsonBody()). */
    rawBody?: Buffer;
  }
}

/** Bodies nested deeper than this are refused: nothing legitimate needs more, and deeper values break
 * recursive consumers (validation, PostgreSQL's jsonb parser). */
export const MAX_BODY_DEPTH = 64;

export const MAX_BODY_BYTES = 1024 * 1024;
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** Echoes a well-formed `X-Request-Id` or generates one; it tags every log line of the request. */
export function requestId(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/**
 * The API answers every request in full: it sends no validators (the app's `etag` setting is off), and
 * a request's `If-None-Match` and `If-Modified-Since` are dropped before any route sees them, as
 * Express would otherwise answer `If-None-Match: *` with an empty 304, which no operation declares.
 * Mounted after the console, whose page and files keep their validators.
 */
export function answerInFull(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    delete req.headers['if-none-match'];
    delete req.headers['if-modified-since'];
    next();
  };
}

/**
 * The client's address: the TCP peer, or with TRUST_PROXY the address the trusted proxies forwarded
 * (Express's `req.ip`). An IPv4 client of a dual-stack listener shows as plain IPv4 (`127.0.0.1`, not
 * `::ffff:127.0.0.1`), the same whichever way the server listens.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice('::ffff:'.length) : ip;
}

/**
 * One JSON line per request once its answer is sent (or the client went away): the request id, method,
 * URL and client address, the status and the time taken; 5xx at `error`, 4xx at `warn`, the rest at `info`. Written
 * here rather than with pino-http, which builds a child logger for every request whether or not the
 * line is written: dropping it raised `GET /live` from 2,129 to 2,433 requests/s (autocannon, 50
 * connections, on the 2-core bench machine).
 */
export function accessLog(logger: Pino): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.once('close', () => {
      const status = res.statusCode;
      const level =
        status >= 500 ? 'error' : status >= 400 || !res.writableFinished ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: {
            id: req.id,
            method: req.method,
            url: req.originalUrl,
            remoteAddress: clientAddress(req),
          },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A charset other than UTF-8: I-JSON (RFC 7493 §2.1) is UTF-8 only; body-parser would take UTF-16. */
function hasForeignCharset(type: string): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type);
  return (
    charset !== null && charset[1].toLowerCase() !== 'utf-8' && charset[1].toLowerCase() !== 'utf8'
  );
}

/**
 * JSON body parsing with the envelope for its failures: a body that is not `application/json` (or not
 * UTF-8) is 415 (never parsed as a form), malformed JSON is 400, over 1 MiB is 413, and a JSON value
 * that is not an object, that holds a string PostgreSQL cannot store, that is nested deeper than
 * MAX_BODY_DEPTH or that is not I-JSON (a duplicated member name, a noncharacter) is 400 naming the
 * field.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({
    limit: MAX_BODY_BYTES,
    strict: false,
    type: () => true,
    // The bytes as received (after any Content-Encoding), for the I-JSON check once parsed.
    verify: (req, _res, buf) => {
      (req as Request).rawBody = buf;
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      req.body = {};
      return next();
    }
    const type = req.headers['content-type'];
    if (
      typeof type !== 'string' ||
      !/^application\/json\s*(;|$)/i.test(type.trim()) ||
      hasForeignCharset(type)
    ) {
      return sendError(res, {
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type must be application/json',
      });
    }
    parse(req, res, (err?: unknown) => {
      if (err) {
        const e = err as { type?: string; status?: number };
        if (e.type === 'entity.too.large' || e.status === 413) {
          return sendError(res, {
            status: 413,
            code: 'PAYLOAD_TOO_LARGE',
            message: 'request body exceeds 1 MiB',
          });
        }
        if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
          return sendError(res, {
            status: 415,
            code: 'UNSUPPORTED_MEDIA_TYPE',
            message: 'unsupported body encoding or charset',
          });
        }
        return sendError(res, {
          status: 400,
          code: 'VALIDATION_ERROR',
          message: 'malformed JSON body',
          details: { errors: [{ field: 'body', message: 'request body is not valid JSON' }] },
        });
      }
      const body: unknown = req.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return sendError(res, {
          status: 400,
          code: 'VALIDATION_ERROR',
          message: 'request body must be a JSON object',
          details: { errors: [{ field: 'body', message: 'must be a JSON object' }] },
        });
      }
      const problem =
        jsonProblem(body, MAX_BODY_DEPTH) ?? (req.rawBody && iJsonProblem(req.rawBody, body));
      req.rawBody = undefined;
      if (problem) {
        return sendError(res, {
          status: 400,
          code: 'VALIDATION_ERROR',
          message: `${problem.field}: ${problem.message}`,
          details: { errors: [problem] },
        });
      }
      next();
    });
  };
}

/**
 * Requests that Node's HTTP parser rejects before the application sees them (headers over 16 KiB, a
 * malformed request line, a header timeout) are answered in the envelope too, instead of Node's
 * body-less default.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answered?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'HEADERS_TOO_LARGE', 'request headers are too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'REQUEST_TIMEOUT', 'request not received in time']
          : [400, 'VALIDATION_ERROR', 'malformed HTTP request'];
    const body = JSON.stringify({ success: false, error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
