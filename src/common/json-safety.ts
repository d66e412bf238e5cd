/** Checks for JSON that arrives from outside (request bodies, step outputs) before it is stored. */

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/** Why PostgreSQL could not store this string as given, if it could not. */
function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (UNPAIRED_SURROGATE.test(text))
    return 'must be well-formed Unicode (unpaired surrogate escape)';
  return undefined;
}

/**
 * The first problem of a JSON value that PostgreSQL or the validators cannot take: a string or key
 * holding U+0000 or an unpaired surrogate (jsonb refuses both, text refuses U+0000), or nesting deeper
 * than `maxDepth`. Iterative, so that no value can exhaust the stack here either. Paths read like
 * `input.items[2].name`; the root itself is `body`.
 */
export function jsonProblem(
  root: unknown,
  maxDepth: number,
): { field: string; message: string } | undefined {
  const pending: Array<[unknown, string, number]> = [[root, '', 0]];
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!;
    if (typeof value === 'string') {
      const message = stringProblem(value);
      if (message) return { field: path || 'body', message };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      return {
        field: path || 'body',
        message: `must not be nested deeper than ${maxDepth} levels`,
      };
    }
    // Children go onto the stack reversed, so that problems are found in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push([value[i], `${path}[${i}]`, depth + 1]);
      }
      continue;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key] of entries) {
      const message = stringProblem(key);
      if (message) return { field: path ? `${path}.${key}` : key, message };
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      pending.push([item, path ? `${path}.${key}` : key, depth + 1]);
    }
  }
  return undefined;
}

/**
 * Text PostgreSQL can store, for texts that only describe something (error messages, event payloads):
 * U+0000 becomes U+FFFD, as does an unpaired surrogate (which the UTF-8 encoding would otherwise
 * turn into U+FFFD or refuse), and a text longer than `maxLength` UTF-16 code units is cut there
 * with a note saying how much was left out (never inside a surrogate pair).
 */
export function sanitizeText(text: string, maxLength = Infinity): string {
  let out = text;
  let note = '';
  // Cut first, so that a huge text is scanned only as far as it is kept.
  if (text.length > maxLength) {
    const last = text.charCodeAt(maxLength - 1);
    const cut = last >= 0xd800 && last <= 0xdbff ? maxLength - 1 : maxLength;
    out = text.slice(0, cut);
    note = `… (${text.length - cut} more characters)`;
  }
  if (out.includes('\u0000')) out = out.replaceAll('\u0000', '\ufffd');
  if (UNPAIRED_SURROGATE.test(out)) out = out.replace(UNPAIRED_SURROGATES, '\ufffd');
  return out + note;
}

/**
 * A copy of a JSON value with every string and key passed through `sanitizeText` (strings longer
 * than `maxLength` cut), and anything nested deeper than `maxDepth` replaced by null (which also ends
 * a cycle). Iterative like `jsonProblem`; values that are not JSON (functions, undefined) are left to
 * JSON.stringify, which drops them.
 */
export function sanitizeJson<T>(root: T, maxLength = Infinity, maxDepth = 256): T {
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return sanitizeText(value, maxLength);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= maxDepth) return null;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
    return Array.isArray(value) ? new Array<unknown>(value.length) : {};
  };
  const out = copy(root, 0);
  const pending: Array<[unknown, unknown, number]> = [[root, out, 0]];
  while (pending.length > 0) {
    const [from, to, depth] = pending.pop()!;
    if (typeof from !== 'object' || from === null || to === from || to === null) continue;
    for (const [key, item] of Object.entries(from as Record<string, unknown>)) {
      const target = copy(item, depth + 1);
      const name = Array.isArray(to) ? key : sanitizeText(key, maxLength);
      // Defined, not assigned: a `__proto__` key is data to keep, never the copy's prototype.
      Object.defineProperty(to, name, {
        value: target,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      pending.push([item, target, depth + 1]);
    }
  }
  return out as T;
}
