import { createHash } from 'node:crypto';

/** The request header (lower case, as Node.js names it). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The field validation errors name. */
export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';
/** The response header of a replayed answer. */
export const REPLAYED_HEADER = 'Idempotency-Replayed';
export const MAX_KEY_LENGTH = 255;

/** The methods whose requests take the header; on the others (GET, HEAD, OPTIONS, PUT) it is ignored. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);

const KEY_RULE = `must be 1-${MAX_KEY_LENGTH} printable ASCII characters, or such a string in double quotes`;

export type ParsedKey = { key: string } | { problem: string };

/**
 * The key of the `Idempotency-Key` header as Node.js received it (`headersDistinct`: one entry per
 * field line). The IETF draft makes the value a Structured Field string (`"8e03978e-…"`, RFC 8941
 * §3.3.3, with `\"` and `\\` escapes); Stripe and most clients send the bare token. Both are accepted
 * and mean the same key: `"abc"` is the key `abc`. The key is 1-255 printable ASCII characters
 * (U+0020-U+007E). Sent twice, empty, too long, or with anything else: a problem to answer 400 with.
 */
export function parseIdempotencyKey(lines: readonly string[]): ParsedKey {
  if (lines.length !== 1) return { problem: 'must be sent once' };
  const value = lines[0].trim();
  let key: string | undefined = value;
  if (value.startsWith('"')) key = unquote(value);
  if (key === undefined) return { problem: `is not a valid quoted string: ${KEY_RULE}` };
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    return { problem: KEY_RULE };
  }
  return { key };
}

/** An sf-string's content, or undefined when `value` is not exactly one sf-string. */
function unquote(value: string): string | undefined {
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const next = value[++i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
    } else if (c === '"') {
      return i === value.length - 1 ? out : undefined;
    } else if (c < ' ' || c > '~') {
      return undefined;
    } else {
      out += c;
    }
  }
  return undefined;
}

/**
 * A JSON value in canonical form (RFC 8785, JSON Canonicalization Scheme): object members sorted by
 * their UTF-16 code units, no whitespace, numbers and strings as ECMAScript's JSON.stringify writes
 * them (which is what JCS specifies). Bodies are I-JSON (checked before any route), so this is defined
 * for every body a route sees. Two bodies that differ only in member order or spacing are the same.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  // As JSON.stringify, a member whose value is undefined is absent (a parsed body has none).
  const members = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 of the body's canonical bytes (UTF-8). */
export function bodyHash(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest();
}

/**
 * Whether an answer is stored and replayed. Stored: every 2xx, and the 4xx answers a route gives about
 * the state it found (404, 409, ...). Not stored, so that the same key can simply be sent again: 5xx
 * (the service failed; it may succeed next time), 429, 401 and 403 (credentials, scopes, Origin), and
 * the answers to a request that was itself invalid, which change nothing: 400, 413, 415 (and 422).
 */
export function isStoredStatus(status: number): boolean {
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  return !NOT_STORED_4XX.has(status);
}

/** 422 is the Idempotency-Key layer's own answer (a reused key), never a route's. */
const NOT_STORED_4XX = new Set([400, 401, 403, 413, 415, 422, 429]);
