/** Turns the API's cost points into what the stacked chart draws: one series per model, one value per bucket. */

export interface CostPoint {
  start: string;
  model: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  calls: number;
}

export interface StackedSeries {
  /** Bucket starts (ISO), oldest first. */
  starts: string[];
  /** Most expensive model first; `values[i]` is the model's cost in bucket `starts[i]`. */
  series: { model: string; values: number[] }[];
}

/**
 * Every bucket of `starts` gets a value for every model (0 where it had no calls). A point whose start is
 * not among `starts` (should the API's buckets and ours ever disagree) still gets its own bucket, so no
 * spend is hidden from the chart.
 */
export function stackByModel(points: CostPoint[], starts: string[]): StackedSeries {
  const allStarts = new Map<number, string>(starts.map((s) => [Date.parse(s), s]));
  for (const point of points) {
    const at = Date.parse(point.start);
    if (!allStarts.has(at)) allStarts.set(at, point.start);
  }
  const ordered = [...allStarts.entries()].sort((a, b) => a[0] - b[0]);
  const index = new Map(ordered.map(([at], i) => [at, i]));
  const totals = new Map<string, number>();
  const values = new Map<string, number[]>();
  for (const point of points) {
    let row = values.get(point.model);
    if (!row) {
      row = ordered.map(() => 0);
      values.set(point.model, row);
    }
    row[index.get(Date.parse(point.start))!] += point.costUsd;
    totals.set(point.model, (totals.get(point.model) ?? 0) + point.costUsd);
  }
  const models = [...values.keys()].sort(
    (a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b),
  );
  return {
    starts: ordered.map(([, iso]) => iso),
    series: models.map((model) => ({ model, values: values.get(model)! })),
  };
}

/** Distinguishable colours (with AA contrast against white for the legend swatches); cycled. */
export const MODEL_COLOURS = [
  '#0b5cad',
  '#c2410c',
  '#15803d',
  '#7c3aed',
  '#b91c1c',
  '#0e7490',
  '#a16207',
  '#be185d',
  '#4b5563',
  '#1d4ed8',
];

/** The same model always gets the same colour on one page (by its place in the by-model ranking). */
export function colourFor(model: string, ranking: string[]): string {
  const i = ranking.indexOf(model);
  return MODEL_COLOURS[(i < 0 ? ranking.length : i) % MODEL_COLOURS.length];
}

/** A share in percent with one decimal (`12.5%`); 0 when the total is 0. */
export function share(part: number, total: number): string {
  if (total <= 0) return '0%';
  return `${((part / total) * 100).toFixed(1)}%`;
}
