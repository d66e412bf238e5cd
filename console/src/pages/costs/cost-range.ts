/**
 * The Costs page's range: a preset or custom dates, kept in the URL (`range`, `from`, `to`), turned into
 * the exact instants every cost request of one view uses, so that the totals, the series and the
 * by-definition table cover the same window.
 */

export const PRESETS = [
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
  { value: '90d', label: 'Last 90 days', days: 90 },
  { value: 'month', label: 'This month' },
  { value: 'custom', label: 'Custom dates' },
] as const;

export type RangeKind = (typeof PRESETS)[number]['value'];

export const DEFAULT_RANGE: RangeKind = '30d';

/** Ranges up to this long are charted by hour, longer ones by day. */
export const HOURLY_UP_TO_MS = 2 * 86_400_000;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface ResolvedRange {
  kind: RangeKind;
  /** ISO instants sent to the API (both inclusive, like /v1/cost/summary). */
  from: string;
  to: string;
  bucket: 'day' | 'hour';
  /** The custom dates as written (YYYY-MM-DD), for the date inputs. */
  fromDate: string;
  toDate: string;
}

export type RangeResult = { ok: true; range: ResolvedRange } | { ok: false; problem: string };

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD that names a real day, as the instant of its start (UTC); undefined otherwise. */
export function parseDate(value: string | undefined): number | undefined {
  if (!value || !DATE.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  if (Number.isNaN(ms) || isoDate(ms) !== value) return undefined;
  return ms;
}

export function isRangeKind(value: string | undefined): value is RangeKind {
  return PRESETS.some((p) => p.value === value);
}

/**
 * The range the query describes at `now`. "Last N days" is today and the N-1 days before it (whole UTC
 * days, so a daily chart has exactly N bars); "this month" starts on the 1st (UTC); custom dates are
 * whole UTC days, both included. An unknown `range` falls back to the default.
 */
export function resolveRange(query: Record<string, string>, now: number): RangeResult {
  const kind: RangeKind = isRangeKind(query.range) ? query.range : DEFAULT_RANGE;
  let fromMs: number;
  let toMs: number;
  if (kind === 'custom') {
    const from = parseDate(query.from);
    const to = parseDate(query.to);
    if (from === undefined) return { ok: false, problem: 'Choose a valid start date (from).' };
    if (to === undefined) return { ok: false, problem: 'Choose a valid end date (to).' };
    if (to < from) return { ok: false, problem: 'The end date must not be before the start date.' };
    fromMs = from;
    toMs = to + DAY_MS - 1;
  } else if (kind === 'month') {
    const date = new Date(now);
    fromMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    toMs = now;
  } else {
    const days = PRESETS.find((p) => p.value === kind && 'days' in p) as { days: number };
    fromMs = startOfUtcDay(now) - (days.days - 1) * DAY_MS;
    toMs = now;
  }
  return {
    ok: true,
    range: {
      kind,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      bucket: toMs - fromMs <= HOURLY_UP_TO_MS ? 'hour' : 'day',
      fromDate: query.from ?? isoDate(fromMs),
      toDate: query.to ?? isoDate(toMs),
    },
  };
}

/** The start of every bucket from `from` to `to` (so that days without spend show as empty bars). */
export function bucketStarts(from: string, to: string, bucket: 'day' | 'hour'): string[] {
  const size = bucket === 'day' ? DAY_MS : 3_600_000;
  const first = Math.floor(Date.parse(from) / size) * size;
  const last = Date.parse(to);
  const starts: string[] = [];
  // Bounded by the API's own bucket limit; this only guards against a runaway loop.
  for (let t = first; t <= last && starts.length < 5000; t += size) {
    starts.push(new Date(t).toISOString());
  }
  return starts;
}

/** A bucket's label: `Nov 24` by day, `Nov 24 17:00` by hour (UTC, like every time in the console). */
export function bucketLabel(start: string, bucket: 'day' | 'hour'): string {
  const date = new Date(start);
  const day = date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  if (bucket === 'day') return day;
  return `${day} ${date.toISOString().slice(11, 16)}`;
}
