/** Formatting shared by the pages: one place for how money, durations and times look. */

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});
const integer = new Intl.NumberFormat('en-US');
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function formatUsd(value: number): string {
  return usd.format(value);
}

export function formatInteger(value: number): string {
  return integer.format(value);
}

/** `2026-11-24 17:03:05 UTC`: the exact time, shown on hover of every relative time. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `3 minutes ago`, `in 2 hours`, relative to `now`. */
export function formatRelative(iso: string, now: number = Date.now()): string {
  const ms = new Date(iso).getTime() - now;
  if (Number.isNaN(ms)) return iso;
  const seconds = Math.round(ms / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return relative.format(seconds, 'second');
  if (abs < 45 * 60) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 22 * 3600) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 26 * 86400) return relative.format(Math.round(seconds / 86400), 'day');
  if (abs < 320 * 86400) return relative.format(Math.round(seconds / (30 * 86400)), 'month');
  return relative.format(Math.round(seconds / (365 * 86400)), 'year');
}

/** `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** JSON for display: two-space indentation; anything JSON cannot hold is shown as its string. */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
