import { bucketLabel, bucketStarts, parseDate, resolveRange } from './cost-range';

const NOW = Date.parse('2026-11-24T17:03:05.123Z');

function resolved(query: Record<string, string>) {
  const result = resolveRange(query, NOW);
  if (!result.ok) throw new Error(result.problem);
  return result.range;
}

describe('resolveRange', () => {
  it('defaults to the last 30 days: today and the 29 whole UTC days before it, by day', () => {
    expect(resolved({})).toEqual({
      kind: '30d',
      from: '2026-10-26T00:00:00.000Z',
      to: '2026-11-24T17:03:05.123Z',
      bucket: 'day',
      fromDate: '2026-10-26',
      toDate: '2026-11-24',
    });
  });

  it('makes "last 7 days" exactly seven daily buckets ending today', () => {
    const range = resolved({ range: '7d' });
    expect(range.from).toBe('2026-11-18T00:00:00.000Z');
    expect(bucketStarts(range.from, range.to, range.bucket)).toHaveLength(7);
  });

  it('starts "this month" on the 1st (UTC)', () => {
    expect(resolved({ range: 'month' })).toEqual(
      expect.objectContaining({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-24T17:03:05.123Z' }),
    );
  });

  it('takes custom dates as whole UTC days, both included, by hour up to two days', () => {
    expect(resolved({ range: 'custom', from: '2026-11-02', to: '2026-11-03' })).toEqual({
      kind: 'custom',
      from: '2026-11-02T00:00:00.000Z',
      to: '2026-11-03T23:59:59.999Z',
      bucket: 'hour',
      fromDate: '2026-11-02',
      toDate: '2026-11-03',
    });
    expect(resolved({ range: 'custom', from: '2026-11-02', to: '2026-11-04' }).bucket).toBe('day');
  });

  it('names the problem with bad or reversed custom dates instead of asking the API', () => {
    expect(resolveRange({ range: 'custom', from: '2026-02-30', to: '2026-03-01' }, NOW)).toEqual({
      ok: false,
      problem: 'Choose a valid start date (from).',
    });
    expect(resolveRange({ range: 'custom', from: '2026-03-01' }, NOW)).toEqual({
      ok: false,
      problem: 'Choose a valid end date (to).',
    });
    expect(resolveRange({ range: 'custom', from: '2026-03-02', to: '2026-03-01' }, NOW)).toEqual({
      ok: false,
      problem: 'The end date must not be before the start date.',
    });
  });

  it('falls back to the default for an unknown range', () => {
    expect(resolved({ range: '<script>' }).kind).toBe('30d');
  });
});

describe('parseDate', () => {
  it('accepts real days only', () => {
    expect(parseDate('2024-02-29')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(parseDate('2025-02-29')).toBeUndefined();
    expect(parseDate('2025-2-1')).toBeUndefined();
    expect(parseDate(undefined)).toBeUndefined();
  });
});

describe('bucketStarts and bucketLabel', () => {
  it('lists every hour of a day range and labels it in UTC', () => {
    const starts = bucketStarts('2026-11-02T00:00:00.000Z', '2026-11-02T23:59:59.999Z', 'hour');
    expect(starts).toHaveLength(24);
    expect(starts[0]).toBe('2026-11-02T00:00:00.000Z');
    expect(bucketLabel(starts[13], 'hour')).toBe('Nov 2 13:00');
    expect(bucketLabel(starts[0], 'day')).toBe('Nov 2');
  });
});
