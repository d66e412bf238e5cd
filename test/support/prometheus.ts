/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: its samples and the declared type of each family. */
export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  /** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of `name` whose labels include `labels`. */
  all(name: string, labels?: Record<string, string>): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4) the way a scraper reads it. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) {
      labels[k] = v.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  const all = (name: string, labels: Record<string, string> = {}) =>
    samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  return {
    samples,
    types,
    all,
    value(name, labels = {}) {
      const found = all(name, labels);
      if (found.length > 1) {
        throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      }
      return found[0]?.value;
    },
  };
}
