import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

/** Who the request authenticated as; filled by the API-key guard (or the throttler, which runs first). */
export type AuthContext =
  { kind: 'key'; keyId: string; workspaceId: string } | { kind: 'admin' } | { kind: 'bootstrap' };

export type AuthMode = 'public' | 'admin' | 'key-or-bootstrap';
export const AUTH_MODE = 'auth:mode';

/** No authentication at all (health probes). */
export const Public = () => SetMetadata(AUTH_MODE, 'public' satisfies AuthMode);
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
