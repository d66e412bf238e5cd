import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

/**
 * An API key the request authenticated with: sent in `x-api-key` (`via: 'header'`), or held by the
 * console session cookie (`via: 'session'`, design §12), which also carries the reviewer's self-declared
 * name and the session's end.
 */
export type KeyAuth = {
  kind: 'key';
  keyId: string;
  workspaceId: string;
  via: 'header' | 'session';
  /** Session only: the name the reviewer signed in with; decisions record it as `decidedBy`. */
  reviewerName?: string;
  /** Session only: when the session cookie stops being accepted. */
  sessionExpiresAt?: Date;
};

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
