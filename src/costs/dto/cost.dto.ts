import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { OptionalTimestamp } from '../../common/timestamps';

export class CostSummaryQueryDto {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Start of the window (inclusive); default 1970-01-01T00:00:00.000Z',
  })
  @OptionalTimestamp('from')
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'End of the window (inclusive); default the time of the request',
  })
  @OptionalTimestamp('to')
  to?: string;
}

/**
 * The bounds of the window as the service answers them: ISO 8601 in UTC with milliseconds, like every
 * timestamp, but a query may name any year its zone can shift past 0000-9999 (`to=9999-12-31T23:59:59
 * -14:00`), which ISO 8601 writes with an expanded, signed year. So not `format: date-time` (RFC
 * 3339, four-digit years only).
 */
const ISO_TIMESTAMP = '^([+-]\\d{6}|\\d{4})-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const WINDOW_BOUND =
  'ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. ' +
  '+010000-01-01T13:59:59.999Z';

export class CostCallDto {
  @ApiProperty() stepName: string;
  @ApiProperty({ example: 'openai:gpt-4o-mini', description: 'As written in the step' })
  model: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens: number;
  @ApiProperty({ type: 'number', minimum: 0, example: 0.0005253 }) costUsd: number;
  @ApiProperty({ format: 'date-time', description: 'When the provider answered' })
  createdAt: string;
}

export class RunCostDto {
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ type: 'number', minimum: 0, example: 0.0005253 }) totalCostUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalInputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalOutputTokens: number;
  @ApiProperty({ type: [CostCallDto], description: 'One per completed LLM call, oldest first' })
  calls: CostCallDto[];
  @ApiProperty({
    type: () => [ChildRunCostDto],
    description:
      'Every descendant run started by workflow steps (children, their children...), oldest first, ' +
      'each with its own calls; the totals and calls above are the run\'s own',
  })
  childRuns: ChildRunCostDto[];
  @ApiProperty({
    type: 'number',
    minimum: 0,
    description: 'totalCostUsd plus that of every descendant run',
  })
  totalWithChildrenCostUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalWithChildrenInputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalWithChildrenOutputTokens: number;
}

export class ChildRunCostDto {
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid', description: 'The run whose workflow step started it' })
  parentRunId: string;
  @ApiProperty({ type: 'number', minimum: 0 }) totalCostUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalInputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalOutputTokens: number;
  @ApiProperty({ type: [CostCallDto], description: 'The child run\'s own calls, oldest first' })
  calls: CostCallDto[];
}

export class ModelCostDto {
  @ApiProperty() model: string;
  @ApiProperty({ type: 'number', minimum: 0 }) costUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Completed calls' }) calls: number;
}

export class CostSummaryDto {
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({
    pattern: ISO_TIMESTAMP,
    description: WINDOW_BOUND,
    example: '1970-01-01T00:00:00.000Z',
  })
  from: string;
  @ApiProperty({
    pattern: ISO_TIMESTAMP,
    description: WINDOW_BOUND,
    example: '2025-01-31T00:00:00.000Z',
  })
  to: string;
  @ApiProperty({ type: 'number', minimum: 0 }) totalCostUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalInputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) totalOutputTokens: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Distinct runs with at least one cost record in the window',
  })
  totalRuns: number;
  @ApiProperty({ type: [ModelCostDto], description: 'Most expensive model first' })
  byModel: ModelCostDto[];
}

export const COST_BUCKETS = ['day', 'hour'] as const;
export type CostBucket = (typeof COST_BUCKETS)[number];

export class CostSeriesQueryDto {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Start of the window (inclusive); default 30 days before `to`',
  })
  @OptionalTimestamp('from')
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'End of the window (inclusive, like the summary); default the time of the request',
  })
  @OptionalTimestamp('to')
  to?: string;

  @ApiPropertyOptional({
    enum: COST_BUCKETS,
    default: 'day',
    description: 'Length of a bucket; buckets start at whole UTC days or hours',
  })
  @IsOptional()
  @IsIn(COST_BUCKETS, { message: `bucket must be one of ${COST_BUCKETS.join(', ')}` })
  bucket?: CostBucket;
}

export class CostSeriesPointDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket, UTC' }) start: string;
  @ApiProperty({ example: 'openai:gpt-4o-mini', description: 'As written in the step' })
  model: string;
  @ApiProperty({ type: 'number', minimum: 0 }) costUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Completed calls' }) calls: number;
}

export class CostSeriesDto {
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ pattern: ISO_TIMESTAMP, description: WINDOW_BOUND }) from: string;
  @ApiProperty({ pattern: ISO_TIMESTAMP, description: WINDOW_BOUND }) to: string;
  @ApiProperty({ enum: COST_BUCKETS }) bucket: CostBucket;
  @ApiProperty({
    type: [CostSeriesPointDto],
    description:
      'One point per bucket and model that had calls (empty buckets are left out), ordered by ' +
      'start, then model',
  })
  points: CostSeriesPointDto[];
}

export class DefinitionCostDto {
  @ApiProperty({ format: 'uuid' }) definitionId: string;
  @ApiProperty() name: string;
  @ApiProperty() version: string;
  @ApiProperty({ type: 'number', minimum: 0 }) costUsd: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Completed calls' }) calls: number;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Distinct runs of this definition version with a call in the window',
  })
  runs: number;
}

export class CostByDefinitionDto {
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ pattern: ISO_TIMESTAMP, description: WINDOW_BOUND }) from: string;
  @ApiProperty({ pattern: ISO_TIMESTAMP, description: WINDOW_BOUND }) to: string;
  @ApiProperty({
    type: [DefinitionCostDto],
    description: 'One entry per definition version with calls in the window, most expensive first',
  })
  definitions: DefinitionCostDto[];
}
