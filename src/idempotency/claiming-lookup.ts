import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { AnswerCapture, type Claim } from './answer-capture';
import { KeyWriter } from './key-writer';
import {
  bodyHash,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METHODS,
  parseIdempotencyKey,
} from './idempotency-key';
import {
  IdempotencyRepository,
  type ClaimingKeyRow,
  type RequestFingerprint,
} from './idempotency.repository';

/** The claim of a request's key made by its API-key lookup, or the key found held by another request. */
export interface EarlyClaim {
  claim: Claim;
  request: RequestFingerprint;
  claimed: boolean;
}

const EARLY_CLAIM = Symbol('idempotencyEarlyClaim');

type WithEarlyClaim = Request & { [EARLY_CLAIM]?: EarlyClaim };

/** The claim the request's key lookup made or found, once (the interceptor takes it). */
export function takeEarlyClaim(req: Request): EarlyClaim | undefined {
  const holder = req as WithEarlyClaim;
  const early = holder[EARLY_CLAIM];
  delete holder[EARLY_CLAIM];
  return early;
}

/**
 * The API-key lookup of a keyed request (a POST, PATCH or DELETE with an `x-api-key` and a well-formed
 * `Idempotency-Key`), in one statement with the claim of its key (README "Idempotent requests"): the
 * key's workspace is the claim's scope, so the request pays no round trip of its own for the claim.
 * The claim is made before the guards decide; an answer that is not stored (401, 403, 429, ...)
 * gives the key back, as every claimed request's does. The interceptor takes the claim over once the
 * route is known (takeEarlyClaim).
 */
@Injectable()
export class ClaimingLookup {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly capture: AnswerCapture,
    private readonly writer: KeyWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The Idempotency-Key the lookup of this request's API key also claims, or undefined (not a keyed
   * POST, PATCH or DELETE with a well-formed header). Not while this process still writes an answer
   * for that key: the writer's own claim then finds the answer (a retry sent right after the first
   * answer replays at once).
   */
  claimableKey(req: Request): string | undefined {
    const header = req.headersDistinct[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined || !IDEMPOTENT_METHODS.has(req.method) || req.res === undefined) {
      return undefined;
    }
    const parsed = parseIdempotencyKey(header);
    if ('problem' in parsed || this.writer.hasUnwrittenAnswer(parsed.key)) return undefined;
    return parsed.key;
  }

  /**
   * The active API key with hash `keyHash` (undefined: none), having claimed `key` (claimableKey) in
   * its workspace or found it held.
   */
  async lookup(req: Request, keyHash: string, key: string): Promise<ClaimingKeyRow | undefined> {
    const res: Response | undefined = req.res;
    if (res === undefined) throw new Error("ClaimingLookup.lookup needs the request's response");
    const owner = randomUUID();
    const request: RequestFingerprint = {
      method: req.method,
      path: req.originalUrl,
      bodyHash: bodyHash(req.body),
      caller: null,
    };
    const { claimLeaseMs, ttlMs } = this.config.idempotency;
    const row = await this.keys.authenticateAndClaim(
      keyHash,
      key,
      request,
      owner,
      claimLeaseMs,
      ttlMs,
    );
    if (!row) return undefined;
    request.caller = row.id;
    const claim: Claim = { scope: `ws:${row.workspace_id}`, key, owner };
    if (row.claimed) this.capture.capture(res, claim);
    (req as WithEarlyClaim)[EARLY_CLAIM] = { claim, request, claimed: row.claimed };
    return row;
  }
}
