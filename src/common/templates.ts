/**
 * `{{path}}` placeholders filled from the run state by dot path (design §3), spaces inside the braces
 * ignored. The spaces are trimmed in code, not matched by `\s*` around a lazy group: that form
 * backtracks cubically on a tenant's `{{` followed by spaces and no `}}` (10 000 spaces held the
 * event loop for minutes). With one unambiguous run of non-braces the match is linear.
 */
const PLACEHOLDER = /\{\{([^{}]+)\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{([^{}]+)\}\}$/;

/** The path inside the braces; spaces only (`{{ }}`) keep their last one, as the former pattern did. */
function placeholderPath(inner: string): string {
  return inner.trim() || inner.slice(-1);
}

export class TemplateError extends Error {}

export function lookupPath(state: unknown, path: string): unknown {
  let current: unknown = state;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function valueOf(state: unknown, path: string): unknown {
  const value = lookupPath(state, path);
  if (value === undefined) throw new TemplateError(`missing value for placeholder {{${path}}}`);
  return value;
}

/** Fills every placeholder of a string; objects are inserted as JSON. */
export function renderString(template: string, state: unknown): string {
  return template.replace(PLACEHOLDER, (_m, inner: string) => {
    const value = valueOf(state, placeholderPath(inner));
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/**
 * Renders every string inside a JSON value. A string that is exactly one placeholder takes the value
 * itself, keeping its type (`"{{order.total}}"` stays a number).
 */
export function renderDeep(value: unknown, state: unknown): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    return whole ? valueOf(state, placeholderPath(whole[1])) : renderString(value, state);
  }
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, state));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, renderDeep(v, state)]),
    );
  }
  return value;
}
