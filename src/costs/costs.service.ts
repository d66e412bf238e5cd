import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../common/errors';
import { CostsRepository } from './costs.repository';
import type { CostSummaryDto, CostSummaryQueryDto, RunCostDto } from './dto/cost.dto';

const EPOCH = new Date('1970-01-01T00:00:00.000Z');

@Injectable()
export class CostsService {
  constructor(private readonly costs: CostsRepository) {}

  async runCost(workspaceId: string, runId: string): Promise<RunCostDto> {
    if (!(await this.costs.runExists(workspaceId, runId))) {
      throw new NotFoundError('workflow run');
    }
    const { totals, calls } = await this.costs.runCost(workspaceId, runId);
    return {
      workflowRunId: runId,
      totalCostUsd: Number(totals.cost_usd),
      totalInputTokens: Number(totals.input_tokens),
      totalOutputTokens: Number(totals.output_tokens),
      calls: calls.map((c) => ({
        stepName: c.step_name,
        model: c.model,
        inputTokens: c.input_tokens,
        outputTokens: c.output_tokens,
        costUsd: Number(c.cost_usd),
        createdAt: c.created_at.toISOString(),
      })),
    };
  }

  async summary(workspaceId: string, q: CostSummaryQueryDto): Promise<CostSummaryDto> {
    const from = q.from === undefined ? EPOCH : new Date(q.from);
    const to = q.to === undefined ? new Date() : new Date(q.to);
    if (from.getTime() > to.getTime()) {
      throw ValidationError.field('from', 'from must not be after to');
    }
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
}
