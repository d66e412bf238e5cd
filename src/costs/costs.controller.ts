import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../common/auth';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors } from '../common/swagger';
import { CostsService } from './costs.service';
import { CostSummaryDto, CostSummaryQueryDto, RunCostDto } from './dto/cost.dto';

/** LLM token usage and cost, per run and per workspace (design §7). */
@ApiTags('costs')
@ApiSecurity('api-key')
@Controller('v1')
export class CostsController {
  constructor(private readonly costs: CostsService) {}

  @Get('workflow-runs/:id/cost')
  @ApiOperation({
    summary: "A run's LLM cost: totals and one entry per completed call",
    description:
      'Every completed call counts, including calls whose answer a guardrail then rejected and ' +
      'calls of attempts that failed later. Computed from exact decimals in the database.',
  })
  @ApiEnvelope(RunCostDto)
  @ApiErrors(401, 404)
  runCost(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
  ): Promise<RunCostDto> {
    return this.costs.runCost(workspaceId, id);
  }

  @Get('cost/summary')
  @ApiOperation({
    summary: "The workspace's LLM cost in a time window, by model",
    description:
      'Sums the cost records created in [from, to]. Omitted from: 1970-01-01T00:00:00.000Z; ' +
      'omitted to: the time of the request. from after to is 400. byModel: most expensive first.',
  })
  @ApiEnvelope(CostSummaryDto)
  @ApiErrors(400, 401)
  summary(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: CostSummaryQueryDto,
  ): Promise<CostSummaryDto> {
    return this.costs.summary(workspaceId, query);
  }
}
