import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../common/errors';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { CostsRepository, type CostCallRow } from './costs.repository';
import type {
  CostBucket,
  CostCallDto,
  CostByDefinitionDto,
  CostSeriesDto,
  CostSeriesQueryDto,
  CostSummaryDto,
  CostSummaryQueryDto,
  RunCostDto,
} from './dto/cost.dto';

function toCallDto(c: CostCallRow): CostCallDto {
  return {
    stepName: c.step_name,
    model: c.model,
    inputTokens: c.input_tokens,
    outputTokens: c.output_tokens,
    costUsd: Number(c.cost_usd),
    createdAt: c.created_at.toISOString(),
  };
}

const EPOCH = new Date('1970-01-01T00:00:00.000Z');
const BUCKET_MS: Record<CostBucket, number> = { day: 86_400_000, hour: 3_600_000 };
/** The default window of the time series: the last 30 days. */
const DEFAULT_SERIES_MS = 30 * 86_400_000;

@Injectable()
export class CostsService {
  constructor(
    private readonly costs: CostsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async runCost(workspaceId: string, runId: string): Promise<RunCostDto> {
    if (!(await this.costs.runExists(workspaceId, runId))) {
      throw new NotFoundError('workflow run');
    }
    const [{ totals, calls }, descendants] = await Promise.all([
      this.costs.runCost(workspaceId, runId),
      this.costs.descendantCosts(workspaceId, runId),
    ]);
    return {
      workflowRunId: runId,
      totalCostUsd: Number(totals.cost_usd),
      totalInputTokens: Number(totals.input_tokens),
      totalOutputTokens: Number(totals.output_tokens),
      calls: calls.map(toCallDto),
      childRuns: descendants.runs.map((r) => ({
        workflowRunId: r.id,
        parentRunId: r.parent_run_id,
        totalCostUsd: Number(r.cost_usd),
        totalInputTokens: Number(r.input_tokens),
        totalOutputTokens: Number(r.output_tokens),
        calls: descendants.calls.filter((c) => c.run_id === r.id).map(toCallDto),
      })),
      totalWithChildrenCostUsd: Number(descendants.totals.cost_usd),
      totalWithChildrenInputTokens: Number(descendants.totals.input_tokens),
      totalWithChildrenOutputTokens: Number(descendants.totals.output_tokens),
    };
  }

  async summary(workspaceId: string, q: CostSummaryQueryDto): Promise<CostSummaryDto> {
    const { from, to } = allTimeWindow(q);
    const { totals, byModel } = await this.costs.summary(workspaceId, from, to);
    return {
      workspaceId,
      from: from.toISOString(),
      to: to.toISOString(),
      totalCostUsd: Number(totals.cost_usd),
      totalInputTokens: Number(totals.input_tokens),
      totalOutputTokens: Number(totals.output_tokens),
      totalRuns: Number(totals.runs),
      byModel: byModel.map((m) => ({
        model: m.model,
        costUsd: Number(m.cost_usd),
        inputTokens: Number(m.input_tokens),
        outputTokens: Number(m.output_tokens),
        calls: Number(m.calls),
      })),
    };
  }

  /**
   * Cost over time by model. The window is the summary's ([from, to], both inclusive), so the points
   * add up to the summary of the same window; it may span at most COST_SERIES_MAX_BUCKETS buckets
   * (UTC has no daylight saving, so a day is always 24 hours).
   */
  async series(workspaceId: string, q: CostSeriesQueryDto): Promise<CostSeriesDto> {
    const bucket = q.bucket ?? 'day';
    const to = q.to === undefined ? new Date() : new Date(q.to);
    const from =
      q.from === undefined ? new Date(to.getTime() - DEFAULT_SERIES_MS) : new Date(q.from);
    if (from.getTime() >= to.getTime()) {
      throw ValidationError.field('from', 'from must be before to');
    }
    const size = BUCKET_MS[bucket];
    const buckets = Math.floor(to.getTime() / size) - Math.floor(from.getTime() / size) + 1;
    const max = this.config.costs.seriesMaxBuckets;
    if (buckets > max) {
      throw new ValidationError([
        {
          field: 'from',
          message:
            `from..to spans ${buckets} buckets of ${bucket === 'day' ? 'a day' : 'an hour'}; at most ` +
            `${max} are allowed (COST_SERIES_MAX_BUCKETS): narrow the range` +
            (bucket === 'hour' ? ' or use bucket=day' : ''),
        },
      ]);
    }
    const rows = await this.costs.series(workspaceId, from, to, bucket);
    return {
      workspaceId,
      from: from.toISOString(),
      to: to.toISOString(),
      bucket,
      points: rows.map((r) => ({
        start: r.start.toISOString(),
        model: r.model,
        costUsd: Number(r.cost_usd),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        calls: Number(r.calls),
      })),
    };
  }

  /** Cost by definition version over the summary's window (all time by default). */
  async byDefinition(workspaceId: string, q: CostSummaryQueryDto): Promise<CostByDefinitionDto> {
    const { from, to } = allTimeWindow(q);
    const rows = await this.costs.byDefinition(workspaceId, from, to);
    return {
      workspaceId,
      from: from.toISOString(),
      to: to.toISOString(),
      definitions: rows.map((r) => ({
        definitionId: r.definition_id,
        name: r.name,
        version: r.version,
        costUsd: Number(r.cost_usd),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        calls: Number(r.calls),
        runs: Number(r.runs),
      })),
    };
  }
}

/** The summary's window: omitted from is the epoch, omitted to the time of the request. */
function allTimeWindow(q: CostSummaryQueryDto): { from: Date; to: Date } {
  const from = q.from === undefined ? EPOCH : new Date(q.from);
  const to = q.to === undefined ? new Date() : new Date(q.to);
  if (from.getTime() > to.getTime()) {
    throw ValidationError.field('from', 'from must not be after to');
  }
  return { from, to };
}
