import { monthPeriod } from './budget-period';

describe('monthPeriod', () => {
  const iso = (d: Date) => d.toISOString();

  it.each([
    ['2025-01-15T12:00:00.000Z', '2025-01-01T00:00:00.000Z', '2025-01-31T23:59:59.999Z'],
    ['2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', '2025-01-31T23:59:59.999Z'],
    ['2025-01-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z', '2025-01-31T23:59:59.999Z'],
    ['2025-02-01T00:00:00.000Z', '2025-02-01T00:00:00.000Z', '2025-02-28T23:59:59.999Z'],
    ['2024-02-29T08:00:00.000Z', '2024-02-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
    ['2025-12-31T23:59:59.999Z', '2025-12-01T00:00:00.000Z', '2025-12-31T23:59:59.999Z'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
  ])('puts %s in the month %s .. %s (UTC)', (now, start, end) => {
    const period = monthPeriod(new Date(now));
    expect(iso(period.start)).toBe(start);
    expect(iso(period.end)).toBe(end);
    expect(period.next.getTime()).toBe(period.end.getTime() + 1);
  });

  it('counts in UTC whatever the offset the instant was written with', () => {
    // 23:30 on 31 January in New York is already February in UTC.
    const period = monthPeriod(new Date('2025-01-31T23:30:00-05:00'));
    expect(iso(period.start)).toBe('2025-02-01T00:00:00.000Z');
  });
});
