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

/**
 * Most characters one render may produce: a string with its placeholders filled, or every string of a
 * task's config together with the values of its whole-placeholder strings, counted as JSON. Without
 * it `'{{o}}'.repeat(1000)` over a 1 MB object built a gigabyte on the event loop. The default
 * RUN_STATE_MAX_BYTES (4 MiB), so a template can still carry the whole of a default-sized state once.
 */
export const MAX_RENDERED_CHARS = 4_194_304;

/** One render: each placeholder's value looked up and stringified once, and the characters written. */
class Render {
  private length = 0;
  private readonly filled = new Map<string, { value: unknown; text: string }>();

  constructor(private readonly state: unknown) {}

  /** The value of `path` and its text (strings as they are, anything else as JSON). */
  private fill(path: string): { value: unknown; text: string } {
    let found = this.filled.get(path);
    if (!found) {
      const value = lookupPath(this.state, path);
      if (value === undefined) throw new TemplateError(`missing value for placeholder {{${path}}}`);
      found = { value, text: typeof value === 'string' ? value : JSON.stringify(value) };
      this.filled.set(path, found);
    }
    return found;
  }

  /** Counts `chars` more characters of output, failing the render past MAX_RENDERED_CHARS. */
  private charge(chars: number, path?: string): void {
    this.length += chars;
    if (this.length > MAX_RENDERED_CHARS) {
      const where = path === undefined ? '' : ` (filling {{${path}}})`;
      throw new TemplateError(
        `template renders to more than ${MAX_RENDERED_CHARS} characters, the most one template ` +
          `may produce${where}`,
      );
    }
  }

  /** Fills every placeholder of a string; objects are inserted as JSON. */
  string(template: string): string {
    this.charge(template.length);
    return template.replace(PLACEHOLDER, (placeholder: string, inner: string) => {
      const path = placeholderPath(inner);
      const { text } = this.fill(path);
      this.charge(text.length - placeholder.length, path);
      return text;
    });
  }

  /** The value of a string that is exactly one placeholder, counted at the length of its text. */
  whole(path: string): unknown {
    const { value, text } = this.fill(path);
    this.charge(text.length, path);
    return value;
  }

  deep(value: unknown): unknown {
    if (typeof value === 'string') {
      const whole = WHOLE_PLACEHOLDER.exec(value);
      return whole ? this.whole(placeholderPath(whole[1])) : this.string(value);
    }
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.deep(v)]),
      );
    }
    return value;
  }
}

/**
 * Fills every placeholder of a string; objects are inserted as JSON. Throws TemplateError for a
 * missing value or an output past MAX_RENDERED_CHARS (steps fail without retrying: the same state
 * renders the same way).
 */
export function renderString(template: string, state: unknown): string {
  return new Render(state).string(template);
}

/**
 * Renders every string inside a JSON value. A string that is exactly one placeholder takes the value
 * itself, keeping its type (`"{{order.total}}"` stays a number). One budget of MAX_RENDERED_CHARS
 * covers the whole value.
 */
export function renderDeep(value: unknown, state: unknown): unknown {
  return new Render(state).deep(value);
}
