import { Injectable } from '@nestjs/common';
import { usdDecimal } from '../common/usd';
import { monthPeriod } from './budget-period';
import { BudgetsRepository } from './budgets.repository';
import type { BudgetDto } from './dto/budget.dto';

/** The workspace's monthly LLM budget (GET/PUT /v1/workspaces/current/budget). */
@Injectable()
export class BudgetsService {
  constructor(private readonly budgets: BudgetsRepository) {}

  async get(workspaceId: string): Promise<BudgetDto> {
    const period = monthPeriod(new Date());
    const row = await this.budgets.get(workspaceId, period);
    return {
      monthlyLimitUsd: row.limit_usd === null ? null : Number(row.limit_usd),
      spentUsd: Number(row.spent_usd),
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
    };
  }

  /** Sets (or with null removes) the budget; answers it as GET does. */
  async put(workspaceId: string, monthlyLimitUsd: number | null): Promise<BudgetDto> {
    await this.budgets.set(
      workspaceId,
      monthlyLimitUsd === null ? null : usdDecimal(monthlyLimitUsd),
    );
    return this.get(workspaceId);
  }
}
