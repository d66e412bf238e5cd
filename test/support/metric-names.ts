/**
 * Metric names on both sides of a check: what the running service exports at GET /metrics, and what a
 * PromQL expression (a Grafana panel, a KEDA trigger) reads.
 */

/**
 * Every series name the exposition at `baseUrl/metrics` can hold: the `# TYPE <name> <type>` families,
 * with `_bucket`, `_sum` and `_count` for histograms (and `_sum`, `_count` for summaries).
 */
export async function exportedMetricNames(baseUrl: string): Promise<Set<string>> {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text}`);
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/gm)) {
    const [, name, type] = match;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** Words of PromQL that look like metric names but are not. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'atan2',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads. Strings, label matchers (`{...}`), range and subquery
 * selectors (`[...]`), the label lists of `by`/`without`/`on`/`ignoring`/`group_*`, and function names
 * (an identifier followed by `(`) are not metric names; every other identifier is. Grafana variables
 * (`$namespace`, `$__rate_interval`) sit inside matchers and ranges, so they go with them.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const after = stripped.slice(match.index + word.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(word.toLowerCase())) continue;
    // Part of a number (1e3, 0x1f) or a duration (5m) rather than a name.
    if (match.index > 0 && /[0-9.]/.test(stripped[match.index - 1])) continue;
    names.add(word);
  }
  return [...names];
}
