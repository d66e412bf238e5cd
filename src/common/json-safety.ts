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
    let entries: Array<[unknown, string]>;
    if (Array.isArray(value)) {
      entries = value.map((item, i): [unknown, string] => [item, `${path}[${i}]`]);
    } else {
      entries = Object.entries(value as Record<string, unknown>).map(
        ([key, item]): [unknown, string] => [item, path ? `${path}.${key}` : key],
      );
      for (const key of Object.keys(value)) {
        const message = stringProblem(key);
        if (message) return { field: path ? `${path}.${key}` : key, message };
      }
    }
    // Reversed onto the stack, so that problems are found in document order.
    for (let i = entries.length - 1; i >= 0; i--) pending.push([...entries[i], depth + 1]);
  }
  return undefined;
}
