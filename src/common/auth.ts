import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthError } from './errors';
import type { Scope } from './scopes';

/**
 * An API key the request authenticated with: sent in `x-api-key` (`via: 'header'`), or held by the
 * console session cookie (`via: 'session'`, design §12), which also carries the reviewer's self-declared
 * name and the session's end.
 */
export type KeyAuth = {
  kind: 'key';
  keyId: string;
  workspaceId: string;
  /** What the key may do (README "Scopes"), in canonical order; read by the query that found the key. */
  scopes: readonly Scope[];
  via: 'header' | 'session';
  /** Session only: the name the reviewer signed in with; decisions record it as `decidedBy`. */
  reviewerName?: string;
  /** Session only: when the session cookie stops being accepted. */
  sessionExpiresAt?: Date;
  /**
   * Set when the guard found the key in this process's key cache instead of reading it from the
   * database (only on routes marked ChecksKeyInQuery): the route's own statement must then find it
   * still active (README "API key cache").
   */
  cached?: CachedKeyCheck;
};

/**
 * The revocation check a cached key still owes (README "API key cache"). A route marked
 * ChecksKeyInQuery passes `keyId` to its statement, which also reads whether the key is active, and
 * calls `settle` with what it read; CachedKeyInterceptor asks the database itself for any answer the
 * route gives without having settled it (an error before its statement ran, a 404 that cannot tell a
 * missing row from a revoked key).
 */
export class CachedKeyCheck {
  /** Whether a statement of this request read the key's state. */
  settled = false;

  /** `query`: reads whether the key is still active with a statement of its own (and settles it). */
  constructor(
    readonly keyId: string,
    readonly keyHash: string,
    private readonly query: (check: CachedKeyCheck) => Promise<boolean>,
  ) {}

  /** Records what a statement read; a revoked (or deleted) key ends the request with 401. */
  settle(active: boolean): void {
    this.settled = true;
    if (!active) throw new AuthError(INVALID_KEY);
  }

  /**
   * For an answer given without a statement that read the key: resolves once the key is known to be
   * active (at once when a statement read it already), 401 when it is not.
   */
  async confirm(): Promise<void> {
    if (!this.settled && !(await this.query(this))) throw new AuthError(INVALID_KEY);
  }
}

export const INVALID_KEY = 'invalid or revoked API key';

/** Who the request authenticated as; filled by the API-key guard (or the throttler, which runs first). */
export type AuthContext = KeyAuth | { kind: 'admin' } | { kind: 'bootstrap' };

export type AuthMode = 'public' | 'admin' | 'key-or-bootstrap' | 'open';
export const AUTH_MODE = 'auth:mode';
export const SAME_ORIGIN = 'auth:same-origin';

/** No authentication at all (health probes); not rate-limited either. */
export const Public = () => SetMetadata(AUTH_MODE, 'public' satisfies AuthMode);
/**
 * No credentials needed, but rate-limited like any request without a valid key, per client address
 * (console sign-in and sign-out: brute-forcing keys through sign-in stays throttled).
 */
export const Open = () => SetMetadata(AUTH_MODE, 'open' satisfies AuthMode);
/**
 * The request must carry an `Origin` of this service (or of CONSOLE_ALLOWED_ORIGINS) whatever its
 * credentials: the console's sign-in, which a cross-site form must not be able to post.
 */
export const SameOriginOnly = () => SetMetadata(SAME_ORIGIN, true);
/** `x-admin-token` when ADMIN_TOKEN is configured, open otherwise (workspace creation). */
export const AdminAuth = () => SetMetadata(AUTH_MODE, 'admin' satisfies AuthMode);
/** An API key, or the bootstrap paths of design §2 (first key of a workspace). */
export const KeyOrBootstrapAuth = () =>
  SetMetadata(AUTH_MODE, 'key-or-bootstrap' satisfies AuthMode);

export const CHECKS_KEY_IN_QUERY = 'auth:key-in-query';
/**
 * The route's statements check that a cached API key is still active (README "API key cache"): the
 * guard may then take an `x-api-key` from the process's key cache, without a round trip of its own,
 * and the route receives the check to make with CachedKey().
 */
export const ChecksKeyInQuery = () => SetMetadata(CHECKS_KEY_IN_QUERY, true);

/**
 * The revocation check the route's statement must make (ChecksKeyInQuery), or undefined when the guard
 * read the key from the database for this request.
 */
export const CachedKey = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): CachedKeyCheck | undefined => {
    const auth = ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth;
    return auth?.kind === 'key' ? auth.cached : undefined;
  },
);

export const REQUIRED_SCOPE = 'auth:scope';
/** What a route declares of the calling key's scopes: one it needs, or `none` (any valid key). */
export type ScopeDeclaration = Scope | 'none';

/**
 * The calling key must hold `scope` (README "Scopes"): the API-key guard answers 403 FORBIDDEN
 * `API key lacks scope <scope>` otherwise. Every route that takes a key declares this or NoScope();
 * the route table test (test/scopes.e2e-spec.ts) fails for one that declares neither, and the guard
 * lets only keys holding every scope through such a route. The OpenAPI document names the scope in
 * the operation's `x-required-scope`.
 */
export const RequiresScope = (scope: Scope) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope satisfies ScopeDeclaration),
    ApiExtension('x-required-scope', scope),
  );
/** Any valid key may call the route, whatever its scopes (the caller's workspace, its console session). */
export const NoScope = () => SetMetadata(REQUIRED_SCOPE, 'none' satisfies ScopeDeclaration);

export interface AuthenticatedRequest extends Request {
  id: string;
  auth?: AuthContext;
}

/** The workspace id of the calling API key. Only valid on routes that require a key. */
export const CurrentWorkspace = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const auth = ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (auth?.kind !== 'key')
    throw new Error('CurrentWorkspace used on a route without API-key auth');
  return auth.workspaceId;
});

/** The id of the calling API key. Only valid on routes that require a key. */
export const CurrentApiKeyId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const auth = ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (auth?.kind !== 'key') throw new Error('CurrentApiKeyId used on a route without API-key auth');
  return auth.keyId;
});

/** The calling key with how it came (header or console session). Only valid on routes that require a key. */
export const CurrentKeyAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const auth = ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (auth?.kind !== 'key') throw new Error('CurrentKeyAuth used on a route without API-key auth');
  return auth;
});

/** The full auth context, for routes that accept more than one way in. */
export const CurrentAuth = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthContext | undefined =>
    ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth,
);

/** A header as one printable-ASCII string of sane length, or undefined when missing/empty. */
export function readHeader(req: Request, name: string): { value?: string; malformed: boolean } {
  const raw = req.headers[name];
  if (raw === undefined) return { malformed: false };
  if (typeof raw !== 'string') return { malformed: true };
  if (raw.length === 0) return { malformed: false };
  if (raw.length > 512 || !/^[\x21-\x7e]+$/.test(raw)) return { malformed: true };
  return { value: raw, malformed: false };
}
