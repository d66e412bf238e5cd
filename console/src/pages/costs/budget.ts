/**
 * The Costs page's budget rules: reading the limit a user typed (the service applies the same rules
 * and answers 400 otherwise) and how much of the month's budget is used. Pure, unit-tested in
 * budget.spec.ts.
 */

/** The largest monthly limit the service accepts (MAX_USD_AMOUNT). */
export const MAX_BUDGET_USD = 1_000_000_000;

/** A typed limit: a positive decimal with at most 6 decimals, at most MAX_BUDGET_USD. */
export function parseLimit(
  text: string,
): { ok: true; value: number } | { ok: false; problem: string } {
  const trimmed = text.trim().replace(/^\$/, '');
  if (trimmed === '') return { ok: false, problem: 'Enter the monthly limit in USD.' };
  if (!/^\d+(\.\d{1,6})?$/.test(trimmed)) {
    return {
      ok: false,
      problem: 'Enter a number of USD with at most 6 decimals, such as 25 or 0.05.',
    };
  }
  const value = Number(trimmed);
  if (value <= 0) return { ok: false, problem: 'The limit must be more than 0.' };
  if (value > MAX_BUDGET_USD) {
    return { ok: false, problem: 'The limit can be at most 1,000,000,000 USD.' };
  }
  return { ok: true, value };
}

export interface BudgetUse {
  /** Spent / limit in percent, rounded down to a whole percent (100 and more when used up). */
  percent: number;
  /** What is left, never below 0. */
  leftUsd: number;
  /** How far the month went past the limit (calls a human allowed past it); 0 when within. */
  overUsd: number;
}

/** How much of `limit` the month's `spent` uses. Amounts are micro-dollars at most: no float drift. */
export function budgetUse(limitUsd: number, spentUsd: number): BudgetUse {
  const micro = (usd: number) => Math.round(usd * 1_000_000);
  const limit = micro(limitUsd);
  const spent = micro(spentUsd);
  return {
    percent: limit > 0 ? Math.floor((spent * 100) / limit) : 0,
    leftUsd: Math.max(0, limit - spent) / 1_000_000,
    overUsd: Math.max(0, spent - limit) / 1_000_000,
  };
}

/** `November 2026`: the budget's calendar month (UTC), from its periodStart. */
export function monthLabel(periodStart: string): string {
  const date = new Date(periodStart);
  if (Number.isNaN(date.getTime())) return periodStart;
  return date.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}
