import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from 'ai';

/**
 * Longest provider error text shown to a tenant (step error, `LLM_CALL_FAILED`,
 * `LLM_FALLBACK_TRIGGERED`). Provider messages are a sentence or two; anything longer is a dump.
 */
export const PROVIDER_ERROR_MAX_CHARS = 300;
/** How much of a provider's text is examined at all (a few times the cap, for what trimming removes). */
const SCAN_WINDOW_CHARS = 4096;

const REDACTED = '[redacted]';
const UNREADABLE = 'the provider answered with a response that could not be read';

/**
 * Secrets a provider (or a proxy in front of it) may echo back: API keys of the usual shapes, bearer
 * tokens, `key=value` credentials, our own `svc_`/`whsec_` secrets, and long opaque tokens.
 */
const SECRET_PATTERNS: RegExp[] = [
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9][A-Za-z0-9_\-*.]{6,}/g,
  /\b(?:svc|whsec)_[A-Za-z0-9+/=_-]{8,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{12,}/g,
  /\bAIza[A-Za-z0-9_-]{20,}/g,
  /\bBearer\s+[^\s"',;]+/gi,
  /\b((?:api[-_]?key|x-api-key|authorization|access[-_]?token|secret|password|token)["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi,
  /\b[A-Za-z0-9_\-+/]{32,}={0,2}/g,
];

/**
 * The text a tenant may see for a failed provider call: the provider's own message (with the HTTP
 * status), never the request URL, headers, request body, API key, stack or a dump of the answer.
 * `secrets` are the configured provider keys, removed wherever they appear.
 */
export function providerErrorMessage(err: unknown, secrets: readonly string[] = []): string {
  return trimProviderText(rawMessage(err), secrets);
}

function rawMessage(err: unknown): string {
  if (APICallError.isInstance(err)) {
    // The SDK puts the provider's `error.message` here (or the status text when the body is not
    // the provider's error JSON); the body, URL and request stay out.
    // A 2xx here is an answer the SDK could not parse ("Invalid JSON response").
    if (err.statusCode !== undefined && err.statusCode >= 200 && err.statusCode < 300) {
      return UNREADABLE;
    }
    if (err.statusCode !== undefined) return `HTTP ${err.statusCode}: ${err.message}`;
    return `could not reach the provider${errorCode(err)}`;
  }
  if (
    JSONParseError.isInstance(err) ||
    TypeValidationError.isInstance(err) ||
    InvalidResponseDataError.isInstance(err) ||
    EmptyResponseBodyError.isInstance(err)
  ) {
    // Their messages quote the whole answer.
    return UNREADABLE;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** ` (ECONNREFUSED)` for a network failure, from the error or its causes. */
function errorCode(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return ` (${code})`;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

/** Removes secrets, URLs, addresses and stack lines, flattens whitespace and caps the length. */
export function trimProviderText(text: string, secrets: readonly string[] = []): string {
  // Cut before any pattern runs: the text can echo a tenant's prompt, and the URL pattern is
  // quadratic on some shapes (`a.a.a.…`). What lies past the window never reaches the final cap.
  let out = text.slice(0, SCAN_WINDOW_CHARS).split(/\n\s+at /)[0];
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  out = out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*[^\s"'<>.,;:!?)\]]/gi, '[url]');
  out = out.replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '[address]');
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match: string, prefix?: unknown) =>
      typeof prefix === 'string' ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  if (out.length > PROVIDER_ERROR_MAX_CHARS) {
    // Never cut a surrogate pair in half: a lone surrogate cannot be stored.
    const cut = out.slice(0, PROVIDER_ERROR_MAX_CHARS - 1).replace(/[\ud800-\udbff]$/, '');
    out = `${cut.trimEnd()}…`;
  }
  return out || 'the provider call failed';
}
