import { Module } from '@nestjs/common';
import { BudgetDirectory } from './budget-directory';
import { BudgetsController } from './budgets.controller';
import { BudgetsRepository } from './budgets.repository';
import { BudgetsService } from './budgets.service';

/**
 * LLM budgets: the workspace's monthly budget (its endpoints), the reservations of calls in flight,
 * and the directory of budgeted workspaces the LLM step consults before every call.
 */
@Module({
  controllers: [BudgetsController],
  providers: [BudgetsService, BudgetsRepository, BudgetDirectory],
  exports: [BudgetsRepository, BudgetDirectory],
})
export class BudgetsModule {}
