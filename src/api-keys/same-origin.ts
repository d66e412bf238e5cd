import type { Request } from 'express';

export const CROSS_SITE_REFUSED = 'cross-site request refused: Origin does not match this service';

/** Methods that change something: the ones a cookie-authenticated request needs a matching Origin for. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase());
}

/**
 * Whether the request's `Origin` is this service's own origin or one of `allowed`. The own origin is
 * `<protocol>://<host>` as Express derives them: behind proxies trusted by TRUST_PROXY, from
 * `X-Forwarded-Proto` and `X-Forwarded-Host`; otherwise from the connection and `Host`. A missing Origin,
 * `null` (sandboxed or privacy-sensitive contexts) or a repeated header never matches. (The CSRF half of
 * design §12 beside SameSite=Strict: browsers send Origin on every cross-site request and on every
 * same-origin request other than GET and HEAD.)
 */
export function originAllowed(req: Request, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin.length === 0 || origin.length > 512) return false;
  const presented = origin.toLowerCase();
  if (allowed.includes(presented)) return true;
  const host = req.host;
  if (!host) return false;
  return presented === `${req.protocol}://${host}`.toLowerCase();
}
