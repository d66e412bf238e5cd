import { randomUUID } from 'node:crypto';
import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, mergeMap, Observable, of } from 'rxjs';
import type { AuthenticatedRequest } from '../common/auth';
import { ConflictError, IdempotencyKeyReusedError, ValidationError } from '../common/errors';
import { clientAddress } from '../common/http-middleware';
import {
  ENCRYPTED_PREFIX,
  SecretCipher,
  SecretUnreadableError,
  type SecretKind,
} from '../common/secret-cipher';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { KeyWriter } from './key-writer';
import {
  bodyHash,
  IDEMPOTENCY_KEY_FIELD,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METHODS,
  isStoredStatus,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from './idempotency-key';
import {
  IdempotencyRepository,
  type RequestFingerprint,
  type StoredAnswer,
  type StoredHeaders,
} from './idempotency.repository';
import { SECRET_ANSWER, type SecretAnswer } from './secret-answer';

/** The IETF draft's wording for a duplicate of a request still running. */
export const IN_PROGRESS = 'A request with this Idempotency-Key is still in progress';

/** The headers of an answer that a replay carries besides its status and body. */
const REPLAYED_HEADERS = ['content-type', 'location'];

/** Polls for the answer of an identical request in progress: 10 ms, doubling, at most 200 ms apart. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** A claim statement that found the key neither free nor visibly held is run again at once this often. */
const IMMEDIATE_RETRIES = 3;

const STORED_ANSWER: SecretKind = {
  subject: 'the stored answer to this Idempotency-Key',
  owner: 'this key',
  remedy: 'the key works anew once it expires (IDEMPOTENCY_KEY_TTL_MS)',
};

/** A request's key: where it is kept and who holds its claim. */
interface Claim {
  scope: string;
  key: string;
  owner: string;
  secret?: SecretAnswer;
}

/**
 * The `Idempotency-Key` header on every POST, PATCH and DELETE route (README "Idempotent requests";
 * the IETF draft draft-ietf-httpapi-idempotency-key-header). A global interceptor: it runs after the
 * guards, so the workspace is known (requests without an API key are scoped by client address, the one
 * the rate limiter uses), and before the pipes and the handler.
 *
 * The first request with a key claims it (one INSERT that wins the primary key) and runs; its answer
 * is captured as it is sent (status, body, Content-Type and Location) and stored right after; claims
 * of new keys and answers are written in batches (KeyWriter). The same key with the same request (method, path and query, canonical body) answers the
 * stored answer with `Idempotency-Replayed: true` and runs nothing; with another request, 422. A
 * duplicate that arrives while the first runs polls for its answer for IDEMPOTENCY_WAIT_MS, then 409.
 * Answers that are not stored (isStoredStatus, or an answer that sets a cookie) give the key back.
 *
 * It must be the outermost interceptor (registered first): a replay is the stored JSON text as it was
 * sent, which no other interceptor may wrap again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');
  private readonly cipher: SecretCipher;

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyRepository,
    private readonly writer: KeyWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.cipher = new SecretCipher(
      config.encryption.key,
      config.encryption.previousKeys,
      STORED_ANSWER,
    );
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Without the header a request costs this one lookup and nothing else.
    if (req.headers[IDEMPOTENCY_KEY_HEADER] === undefined || !IDEMPOTENT_METHODS.has(req.method)) {
      return next.handle();
    }
    const res = context.switchToHttp().getResponse<Response>();
    return from(this.begin(context, req, res)).pipe(
      mergeMap((replay) => (replay === undefined ? next.handle() : of(replay))),
    );
  }

  /**
   * Claims the key (undefined: run the request), or returns the stored answer's JSON text with the
   * status and headers set on `res`, or throws 400 (the header), 422 (another request) or 409 (in
   * progress past the wait, or an answer that cannot be replayed).
   */
  private async begin(
    context: ExecutionContext,
    req: AuthenticatedRequest,
    res: Response,
  ): Promise<string | undefined> {
    const parsed = parseIdempotencyKey(req.headersDistinct[IDEMPOTENCY_KEY_HEADER] ?? []);
    if ('problem' in parsed) throw ValidationError.field(IDEMPOTENCY_KEY_FIELD, parsed.problem);
    const auth = req.auth;
    const secret = this.reflector.get<SecretAnswer | undefined>(
      SECRET_ANSWER,
      context.getHandler(),
    );
    const claim: Claim = {
      scope: auth?.kind === 'key' ? `ws:${auth.workspaceId}` : `ip:${clientAddress(req)}`,
      key: parsed.key,
      owner: randomUUID(),
      secret,
    };
    const request: RequestFingerprint = {
      method: req.method,
      path: req.originalUrl,
      bodyHash: bodyHash(req.body),
      caller: secret && auth?.kind === 'key' ? auth.keyId : null,
    };
    // A new key (the common case) is claimed by the cheap batched insert; a key held already, by this
    // request's duplicate or an expired or abandoned claim, goes through the full claim below.
    if (await this.writer.claim({ ...claim, request })) {
      this.captureAnswer(res, claim);
      return undefined;
    }
    const { claimLeaseMs, ttlMs, waitMs } = this.config.idempotency;
    const deadline = Date.now() + waitMs;
    let pollMs = FIRST_POLL_MS;
    for (let attempt = 1; ; attempt++) {
      const held = await this.keys.claim(
        claim.scope,
        claim.key,
        request,
        claim.owner,
        claimLeaseMs,
        ttlMs,
      );
      if (held === 'claimed') {
        this.captureAnswer(res, claim);
        return undefined;
      }
      if (held === undefined && attempt <= IMMEDIATE_RETRIES) continue;
      if (held !== undefined) {
        const reuse = describeReuse(held.request, request);
        if (reuse) throw new IdempotencyKeyReusedError(reuse);
        if (held.answer) return this.replay(res, claim, held.answer);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new ConflictError(IN_PROGRESS);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)));
      pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
    }
  }

  private replay(res: Response, claim: Claim, answer: StoredAnswer): string {
    if (answer.secretWithheld) throw new ConflictError(withheldMessage(claim.secret, answer.body));
    let body = answer.body;
    if (body.startsWith(ENCRYPTED_PREFIX)) {
      try {
        body = this.cipher.open(aad(claim), body);
      } catch (err) {
        if (!(err instanceof SecretUnreadableError)) throw err;
        this.logger.error({ keyId: err.keyId }, `${err.message}; ${err.operatorHint}`);
        throw new ConflictError(err.message);
      }
    }
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.setHeader(REPLAYED_HEADER, 'true');
    return body;
  }

  /**
   * Takes the answer as the response ends: queued to be stored (KeyWriter), or the key given back.
   * The response goes out at once; an identical request arriving before the answer is written waits
   * for it like for one in progress.
   */
  private captureAnswer(res: Response, claim: Claim): void {
    const end = res.end;
    res.end = ((...args: Parameters<Response['end']>) => {
      res.end = end;
      this.settle(res, claim, args[0]);
      return end.apply(res, args);
    }) as Response['end'];
  }

  private settle(res: Response, claim: Claim, chunk: unknown): void {
    const { scope, key, owner, secret } = claim;
    const status = res.statusCode;
    // Set-Cookie is never stored: such an answer (a console sign-in) runs anew every time.
    if (!isStoredStatus(status) || res.hasHeader('set-cookie') || res.headersSent) {
      this.keys
        .release(scope, key, owner)
        .catch((err: unknown) =>
          this.logger.warn(
            { err, scope, key },
            'an Idempotency-Key could not be given back; it stays claimed until ' +
              'IDEMPOTENCY_CLAIM_LEASE_MS has passed',
          ),
        );
      return;
    }
    const text =
      typeof chunk === 'string'
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : '';
    let body = text;
    let secretWithheld = false;
    if (secret && status < 300) {
      if (secret.store === 'encrypt' && this.cipher.currentKeyId !== undefined) {
        body = this.cipher.seal(aad(claim), text);
      } else {
        body = withoutSecret(text, secret.field);
        secretWithheld = true;
      }
    }
    this.writer.answer({
      scope,
      key,
      owner,
      answer: { status, headers: replayedHeaders(res), body, secretWithheld },
    });
  }
}

/** The additional authenticated data of an encrypted answer: its row, so a copy elsewhere fails. */
function aad(claim: Claim): string {
  return `${claim.scope}\n${claim.key}`;
}

function replayedHeaders(res: Response): StoredHeaders {
  const headers: StoredHeaders = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** How the request differs from the one the key was first used for; undefined when it is the same. */
function describeReuse(first: RequestFingerprint, now: RequestFingerprint): string | undefined {
  if (first.method !== now.method || first.path !== now.path) {
    return (
      `this Idempotency-Key was already used for ${first.method} ${first.path}; ` +
      'use a new key for another request'
    );
  }
  if (!first.bodyHash.equals(now.bodyHash)) {
    return (
      `this Idempotency-Key was already used for ${first.method} ${first.path} with another ` +
      'body; use a new key for another request'
    );
  }
  if (first.caller !== now.caller) {
    return (
      'this Idempotency-Key was already used by another API key, and the answer holds a secret ' +
      'that is replayed only to that key'
    );
  }
  return undefined;
}

/** The stored form of an answer whose secret is not stored: the answer without it. */
function withoutSecret(text: string, field: string): string {
  try {
    const answer = JSON.parse(text) as { data?: Record<string, unknown> };
    if (answer.data && typeof answer.data === 'object') delete answer.data[field];
    return JSON.stringify(answer);
  } catch {
    return '';
  }
}

function withheldMessage(secret: SecretAnswer | undefined, stored: string): string {
  let id: unknown;
  try {
    id = (JSON.parse(stored) as { data?: { id?: unknown } }).data?.id;
  } catch {
    id = undefined;
  }
  const what = secret
    ? `${secret.resource}${typeof id === 'string' ? ` ${id}` : ''}`
    : 'a resource';
  const field = secret?.field ?? 'secret';
  const why =
    secret?.store === 'encrypt' ? 'is not stored without ENCRYPTION_KEY' : 'is never stored';
  return (
    `the first request with this Idempotency-Key created ${what}; its ${field} is shown only ` +
    `once and ${why}, so that answer cannot be replayed`
  );
}
