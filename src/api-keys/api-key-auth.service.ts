import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CachedKeyCheck, CHECKS_KEY_IN_QUERY, readHeader } from '../common/auth';
import type { AuthenticatedRequest, KeyAuth } from '../common/auth';
import { ClaimingLookup } from '../idempotency/claiming-lookup';
import { ApiKeysRepository } from './api-keys.repository';
import { KeyCache } from './key-cache';
import { decodeSession, readSessionCookie } from './session-cookie';

/**
 * What a request's credentials come to: none at all, a bad `x-api-key`, a console session cookie that
 * is malformed, expired or holds a revoked key (`invalid-session`), or a valid key.
 */
export type KeyResolution =
  { kind: 'none' } | { kind: 'invalid' } | { kind: 'invalid-session' } | KeyAuth;

/**
 * An active key as the lookup found it (the same query gave its workspace and its scopes), or as the
 * key cache holds it (`cached`: its revocation is still to be checked).
 */
export type AuthenticatedKey = Pick<KeyAuth, 'keyId' | 'workspaceId' | 'scopes' | 'cached'>;

const RESOLUTION = Symbol('keyResolution');
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Whether a request with this API key may take it from the key cache: its route checks the key in
 * its own statement (ChecksKeyInQuery). (An Idempotency-Key is then claimed by the key writer, and
 * the idempotency interceptor confirms the key before any answer it gives without the route.)
 */
function mayUseCache(reflector: Reflector, context: ExecutionContext) {
  return reflector.get<boolean | undefined>(CHECKS_KEY_IN_QUERY, context.getHandler()) === true;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): string {
  return `svc_${randomBytes(32).toString('base64url')}`;
}

/**
 * Resolves `x-api-key`, or without it the console session cookie, to a workspace, once per request, and
 * keeps `lastUsedAt` roughly current. The header wins when both are present.
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly logger = new Logger(ApiKeyAuthService.name);
  private readonly lastWrite = new Map<string, number>();
  private readonly cache: KeyCache;
  /** A cached key's own check (CachedKeyCheck.confirm). */
  private readonly query = (check: CachedKeyCheck) => this.confirm(check);

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly claiming: ClaimingLookup,
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.cache = new KeyCache(config.apiKeyCacheSize);
  }

  /**
   * The request's credentials, resolved once whichever guard asks first; `context`, the route, says
   * whether the key may come from the key cache (never without it).
   */
  resolve(req: AuthenticatedRequest, context?: ExecutionContext): Promise<KeyResolution> {
    const memo = req as unknown as Record<symbol, Promise<KeyResolution> | undefined>;
    memo[RESOLUTION] ??= this.lookup(req, context);
    return memo[RESOLUTION];
  }

  private async lookup(
    req: AuthenticatedRequest,
    context?: ExecutionContext,
  ): Promise<KeyResolution> {
    const header = readHeader(req, 'x-api-key');
    if (header.malformed) return { kind: 'invalid' };
    if (header.value) {
      const cacheable = context !== undefined && mayUseCache(this.reflector, context);
      const found = await this.authenticate(header.value, req, cacheable);
      return found ? { kind: 'key', ...found, via: 'header' } : { kind: 'invalid' };
    }
    const cookie = readSessionCookie(req);
    if (!cookie.present) return { kind: 'none' };
    const session = decodeSession(cookie.value, Date.now(), this.config.console.sessionTtlMs);
    if (!session) return { kind: 'invalid-session' };
    const found = await this.authenticate(session.key);
    if (!found) return { kind: 'invalid-session' };
    return {
      kind: 'key',
      ...found,
      via: 'session',
      reviewerName: session.reviewerName,
      sessionExpiresAt: session.expiresAt,
    };
  }

  /**
   * The active key `presented` is, as the x-api-key check and the console sign-in both look it up: by
   * its hash, never revoked, with its scopes. Undefined when there is none. With the request of an
   * x-api-key: a keyed POST, PATCH or DELETE has its Idempotency-Key claimed by the same statement
   * (ClaimingLookup), so that the claim costs the request no round trip of its own; with `cacheable`
   * (mayUseCache), a key in the key cache is taken from there (`cached` set), without a query (and a
   * keyed request's claim is then the key writer's, IdempotencyInterceptor).
   */
  async authenticate(
    presented: string,
    req?: AuthenticatedRequest,
    cacheable = false,
  ): Promise<AuthenticatedKey | undefined> {
    if (!presented.startsWith('svc_') || presented.length > 512) return undefined;
    const hash = hashApiKey(presented);
    const hit = cacheable ? this.cache.get(hash) : undefined;
    if (hit) {
      await this.touch(hit.keyId);
      return { ...hit, cached: new CachedKeyCheck(hit.keyId, hash, this.query) };
    }
    const idempotencyKey = req && this.claiming.claimableKey(req);
    const found =
      req && idempotencyKey !== undefined
        ? await this.claiming.lookup(req, hash, idempotencyKey)
        : await this.keys.findActive(hash);
    if (!found) return undefined;
    const key = { keyId: found.id, workspaceId: found.workspace_id, scopes: found.scopes };
    this.cache.set(hash, key);
    await this.touch(found.id);
    return key;
  }

  /**
   * Settles a cached key's check with a query of its own, for an answer the route gave without its
   * statement having read the key (CachedKeyInterceptor, the guard's 403): false, and the entry is
   * dropped, when the key is no longer active.
   */
  async confirm(check: CachedKeyCheck): Promise<boolean> {
    const active = await this.keys.isActive(check.keyId);
    check.settled = true;
    if (!active) this.cache.delete(check.keyHash);
    return active;
  }

  /** Drops a cached key that a route's statement found revoked. */
  forget(check: CachedKeyCheck): void {
    this.cache.delete(check.keyHash);
  }

  /**
   * Writes `last_used_at` at most once a minute per key and process, so that a busy key costs no write
   * per request. A failed write never fails the request.
   */
  private async touch(keyId: string): Promise<void> {
    const now = Date.now();
    const last = this.lastWrite.get(keyId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    if (this.lastWrite.size >= 10_000) this.lastWrite.clear();
    this.lastWrite.set(keyId, now);
    await this.keys
      .touch(keyId)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record lastUsedAt'));
  }

  /** Constant-time comparison of a presented admin token with ADMIN_TOKEN. */
  adminTokenMatches(presented: string | undefined): boolean {
    const expected = this.config.adminToken;
    if (!expected || !presented) return false;
    const a = createHash('sha256').update(presented).digest();
    const b = createHash('sha256').update(expected).digest();
    return timingSafeEqual(a, b);
  }
}
