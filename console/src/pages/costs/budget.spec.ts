import { budgetUse, monthLabel, parseLimit } from './budget';

describe('parseLimit', () => {
  it.each<[string, number]>([
    ['25', 25],
    [' 0.05 ', 0.05],
    ['$12.5', 12.5],
    ['0.000001', 0.000001],
    ['1000000000', 1_000_000_000],
  ])('reads %p as %p', (text, value) => expect(parseLimit(text)).toEqual({ ok: true, value }));

  it.each<[string, RegExp]>([
    ['', /Enter the monthly limit/],
    ['abc', /at most 6 decimals/],
    ['-5', /at most 6 decimals/],
    ['1.0000001', /at most 6 decimals/],
    ['1e3', /at most 6 decimals/],
    ['0', /more than 0/],
    ['0.000000', /more than 0/],
    ['1000000000.5', /at most 1,000,000,000/],
  ])('refuses %p', (text, problem) => {
    const parsed = parseLimit(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });
});

describe('budgetUse', () => {
  it('says how much is used and left', () => {
    expect(budgetUse(10, 2.5)).toEqual({ percent: 25, leftUsd: 7.5, overUsd: 0 });
    expect(budgetUse(0.3, 0.1)).toEqual({ percent: 33, leftUsd: 0.2, overUsd: 0 });
  });
  it('says how far past the limit an approved overspend went', () => {
    expect(budgetUse(0.15, 0.2)).toEqual({ percent: 133, leftUsd: 0, overUsd: 0.05 });
  });
});

describe('monthLabel', () => {
  it('names the UTC month', () => {
    expect(monthLabel('2026-11-01T00:00:00.000Z')).toBe('November 2026');
  });
});
