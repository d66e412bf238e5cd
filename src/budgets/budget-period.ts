/**
 * The calendar month (UTC) a workspace budget counts: from its first millisecond (`start`) to the
 * first millisecond of the next month (`next`, excluded). `end` is the month's last millisecond, the
 * inclusive bound the API answers as `periodEnd`: GET /v1/cost/summary?from=<start>&to=<end> sums
 * exactly the records the budget counts (cost records are stamped to the millisecond).
 */
export interface BudgetPeriod {
  start: Date;
  end: Date;
  next: Date;
}

export function monthPeriod(now: Date): BudgetPeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end: new Date(next.getTime() - 1), next };
}
