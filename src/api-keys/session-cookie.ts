import type { Request } from 'express';

/**
 * The console session cookie (design §12, README "Console sessions"). Its value is the API key itself,
 * the reviewer's name and the session's end, as base64url(JSON {k, n, e}): no server-side state, so
 * every replica accepts it and a revoked key is refused on the next request. It carries no signature:
 * whoever holds the cookie holds the key already, and the name is self-declared, like `decidedBy` in the
 * API. HttpOnly keeps the key out of reach of the console's JavaScript.
 */
export const SESSION_COOKIE = 'orchestrator_session';

/** A larger cookie value is refused as invalid before it is decoded (a real one is about 200 bytes). */
export const MAX_SESSION_COOKIE_BYTES = 1024;

/** The reviewer's name at sign-in: 1-100 characters once trimmed. */
export const REVIEWER_NAME_MAX_LENGTH = 100;

/** Control, format, private-use, unassigned and surrogate code points, and line/paragraph separators. */
export const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** Why a (trimmed) reviewer name is refused, or undefined when it is fine. */
export function reviewerNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'reviewerName must not be empty';
  if (name.length > REVIEWER_NAME_MAX_LENGTH) {
    return `reviewerName must be at most ${REVIEWER_NAME_MAX_LENGTH} characters`;
  }
  if (UNPRINTABLE.test(name)) return 'reviewerName must not contain control characters';
  return undefined;
}

export interface SessionClaims {
  /** The API key. */
  key: string;
  reviewerName: string;
  expiresAt: Date;
}

export function encodeSession(claims: SessionClaims): string {
  const json = JSON.stringify({
    k: claims.key,
    n: claims.reviewerName,
    e: claims.expiresAt.getTime(),
  });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** An API key as `x-api-key` would accept it: printable ASCII, at most 512 characters. */
function plausibleKey(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 512 && /^[\x21-\x7e]+$/.test(value);
}

/**
 * The claims of a cookie value, or undefined when it is oversized, not base64url JSON of the right
 * shape, expired at `now`, or ends further ahead than a session can last (`ttlMs`, plus a minute of
 * clock skew between replicas).
 */
export function decodeSession(
  value: string,
  now: number,
  ttlMs: number,
): SessionClaims | undefined {
  if (value.length === 0 || value.length > MAX_SESSION_COOKIE_BYTES) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { k, n, e } = parsed as Record<string, unknown>;
  if (!plausibleKey(k) || typeof n !== 'string' || typeof e !== 'number') return undefined;
  if (n !== n.trim() || reviewerNameProblem(n) !== undefined) return undefined;
  if (!Number.isSafeInteger(e) || e <= now || e > now + ttlMs + 60_000) return undefined;
  return { key: k, reviewerName: n, expiresAt: new Date(e) };
}

/**
 * The session cookie's value as the request sent it: `absent`, or the raw value (the first one when a
 * client sent the name twice). Parsed here rather than with cookie-parser: one cookie is all we read.
 */
export function readSessionCookie(
  req: Request,
): { present: false } | { present: true; value: string } {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length === 0) return { present: false };
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1);
    }
    return { present: true, value };
  }
  return { present: false };
}

/** The `Set-Cookie` value that stores `value` for `maxAgeSeconds` (0 clears the cookie). */
export function sessionSetCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}
