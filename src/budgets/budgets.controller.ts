import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace, RequiresScope } from '../common/auth';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { BudgetsService } from './budgets.service';
import { BudgetDto, PutBudgetDto } from './dto/budget.dto';

/** The workspace's monthly LLM budget (README "Budgets"). */
@ApiTags('workspaces')
@ApiSecurity('api-key')
@Controller('v1/workspaces/current/budget')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get()
  @RequiresScope('costs:read')
  @ApiOperation({
    summary: "The workspace's monthly LLM budget and what the current month has spent",
    description:
      'The calendar month is UTC. spentUsd sums the cost records of the month (exact decimals, ' +
      'the figure GET /v1/cost/summary gives for periodStart..periodEnd); calls in flight count ' +
      'once recorded.',
  })
  @ApiEnvelope(BudgetDto)
  @ApiErrors(401)
  get(@CurrentWorkspace() workspaceId: string): Promise<BudgetDto> {
    return this.budgets.get(workspaceId);
  }

  @Put()
  @RequiresScope('keys:write')
  @ApiOperation({
    summary: "Sets the workspace's monthly LLM budget, or removes it with null",
    description:
      'monthlyLimitUsd: a positive number of USD with at most 6 decimal places, at most ' +
      "1000000000, or null. From then on an LLM call that the month's budget cannot cover does " +
      'not start (README "Budgets"). Answers the budget as GET does.',
  })
  @ApiEnvelope(BudgetDto)
  @ApiErrors(...BODY_ERRORS, 401)
  put(@CurrentWorkspace() workspaceId: string, @Body() dto: PutBudgetDto): Promise<BudgetDto> {
    return this.budgets.put(workspaceId, dto.monthlyLimitUsd);
  }
}
