import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace, RequiresScope } from '../common/auth';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors } from '../common/swagger';
import { CostsService } from './costs.service';
import {
  CostByDefinitionDto,
  CostSeriesDto,
  CostSeriesQueryDto,
  CostSummaryDto,
  CostSummaryQueryDto,
  RunCostDto,
} from './dto/cost.dto';

/** LLM token usage and cost, per run and per workspace (design §7). */
@ApiTags('costs')
@ApiSecurity('api-key')
@Controller('v1')
export class CostsController {
  constructor(private readonly costs: CostsService) {}

  @Get('workflow-runs/:id/cost')
  @RequiresScope('costs:read')
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
  @RequiresScope('costs:read')
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

  @Get('cost/timeseries')
  @RequiresScope('costs:read')
  @ApiOperation({
    summary: "The workspace's LLM cost over time, by bucket (UTC day or hour) and model",
    description:
      "The summary's window [from, to] (both inclusive; from must be before to), by default the " +
      '30 days up to the time of the request; the points of a window add up exactly to the summary ' +
      'of the same window. Buckets without calls are left out. At most COST_SERIES_MAX_BUCKETS ' +
      '(default 1000) buckets: a longer range is 400 naming from.',
  })
  @ApiEnvelope(CostSeriesDto)
  @ApiErrors(400, 401)
  series(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: CostSeriesQueryDto,
  ): Promise<CostSeriesDto> {
    return this.costs.series(workspaceId, query);
  }

  @Get('cost/by-definition')
  @RequiresScope('costs:read')
  @ApiOperation({
    summary: "The workspace's LLM cost by workflow definition version",
    description:
      'Sums the cost records created in [from, to] (as the summary: omitted from is ' +
      '1970-01-01T00:00:00.000Z, omitted to the time of the request) per definition version of ' +
      'their runs, most expensive first; `runs` counts the distinct runs with a call in the window.',
  })
  @ApiEnvelope(CostByDefinitionDto)
  @ApiErrors(400, 401)
  byDefinition(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: CostSummaryQueryDto,
  ): Promise<CostByDefinitionDto> {
    return this.costs.byDefinition(workspaceId, query);
  }
}
