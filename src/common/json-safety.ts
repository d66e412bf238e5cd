/** Checks for JSON that arrives from outside (request bodies, step outputs) before it is stored. */

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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
