import { randomUUID } from 'node:crypto';
import { CallHandler, ExecutionContext, Injectable, Inject, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, mergeMap, Observable, of } from 'rxjs';
import type { AuthenticatedRequest } from '../common/auth';
import { ConflictError, IdempotencyKeyReusedError, ValidationError } from '../common/errors';
import { clientAddress } from '../common/http-middleware';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { AnswerCapture, type Claim } from './answer-capture';
import { takeEarlyClaim } from './claiming-lookup';
import { KeyWriter } from './key-writer';
import {
  bodyHash,
  IDEMPOTENCY_KEY_FIELD,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METHODS,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from './idempotency-key';
import {
  IdempotencyRepository,
  type RequestFingerprint,
  type StoredAnswer,
} from './idempotency.repository';
import { SECRET_ANSWER, type SecretAnswer } from './secret-answer';

/** The IETF draft's wording for a duplicate of a request still running. */
export const IN_PROGRESS = 'A request with this Idempotency-Key is still in progress';

/** Polls for the answer of an identical request in progress: 10 ms, doubling, at most 200 ms apart. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** A claim statement that found the key neither free nor visibly held is run again at once this often. */
const IMMEDIATE_RETRIES = 3;

/**
 * The `Idempotency-Key` header on every POST, PATCH and DELETE route (README "Idempotent requests";
 * the IETF draft draft-ietf-httpapi-idempotency-key-header). A global interceptor: it runs after the
 * guards, so the workspace is known (requests without an API key are scoped by client address, the one
 * the rate limiter uses), and before the pipes and the handler.
 *
 * The first request with a key claims it (one INSERT that wins the primary key) and runs; its answer
 * is captured as it is sent (status, body, Content-Type and Location) and stored right after
 * (AnswerCapture). A request with an `x-api-key` has its key claimed by the statement that looks the
 * API key up (ClaimingLookup); other claims of new keys (those of a key from the key cache too), and
 * answers, are written in batches (KeyWriter). The same key with the same request (method, path and
 * query, canonical body; on a route whose answer holds a secret, the same API key too) answers the
 * stored answer with
 * `Idempotency-Replayed: true` and runs nothing; with another request, 422. A
 * duplicate that arrives while the first runs polls for its answer for IDEMPOTENCY_WAIT_MS, then 409.
 * Answers that are not stored (isStoredStatus, or an answer that sets a cookie) give the key back.
 *
 * It must be the outermost interceptor (registered first): a replay is the stored JSON text as it was
 * sent, which no other interceptor may wrap again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyRepository,
    private readonly writer: KeyWriter,
    private readonly capture: AnswerCapture,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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
    const secret = this.reflector.get<SecretAnswer | undefined>(
      SECRET_ANSWER,
      context.getHandler(),
    );
    const auth = req.auth;
    // The API-key lookup claimed the key already (or found it held), in its workspace.
    const early = takeEarlyClaim(req);
    if (early) {
      if (
        auth?.kind === 'key' &&
        auth.via === 'header' &&
        early.claim.scope === `ws:${auth.workspaceId}`
      ) {
        early.claim.secret = secret;
        return early.claimed ? undefined : this.contend(res, early.claim, early.request);
      }
      // Not the way the request authenticated after all: given back, and claimed below as usual.
      if (early.claimed) this.capture.release(early.claim);
    }
    // A key from the key cache (README "API key cache") is read by the route's statement; an answer
    // given here, without the route, waits for a query of its own and is 401 when it was revoked.
    const cached = auth?.kind === 'key' ? auth.cached : undefined;
    const parsed = parseIdempotencyKey(req.headersDistinct[IDEMPOTENCY_KEY_HEADER] ?? []);
    if ('problem' in parsed) {
      await cached?.confirm();
      throw ValidationError.field(IDEMPOTENCY_KEY_FIELD, parsed.problem);
    }
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
      caller: auth?.kind === 'key' ? auth.keyId : null,
    };
    // A new key (the common case) is claimed by the cheap batched insert; a key held already, by this
    // request's duplicate or an expired or abandoned claim, goes through the full claim below.
    if (await this.writer.claim({ ...claim, request })) {
      this.capture.capture(res, claim);
      return undefined;
    }
    await cached?.confirm();
    return this.contend(res, claim, request);
  }

  /**
   * The key is held: claims it when it may be taken over, replays its answer, or waits for the
   * request in progress (IDEMPOTENCY_WAIT_MS).
   */
  private async contend(
    res: Response,
    claim: Claim,
    request: RequestFingerprint,
  ): Promise<string | undefined> {
    const { claimLeaseMs, ttlMs, waitMs } = this.config.idempotency;
    const sameCaller = claim.secret !== undefined;
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
        sameCaller,
      );
      if (held === 'claimed') {
        this.capture.capture(res, claim);
        return undefined;
      }
      if (held === undefined && attempt <= IMMEDIATE_RETRIES) continue;
      if (held !== undefined) {
        const reuse = describeReuse(held.request, request, sameCaller);
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
    const body = this.capture.open(claim, answer.body);
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.setHeader(REPLAYED_HEADER, 'true');
    return body;
  }
}

/** How the request differs from the one the key was first used for; undefined when it is the same. */
function describeReuse(
  first: RequestFingerprint,
  now: RequestFingerprint,
  sameCaller: boolean,
): string | undefined {
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
  if (sameCaller && first.caller !== now.caller) {
    return (
      'this Idempotency-Key was already used by another API key, and the answer holds a secret ' +
      'that is replayed only to that key'
    );
  }
  return undefined;
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
