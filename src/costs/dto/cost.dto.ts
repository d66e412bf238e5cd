import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Matches } from 'class-validator';

/**
 * A calendar date (midnight UTC) or a date-time with a zone (`Z` or an offset). A date-time without a
 * zone is refused: it would mean the server's local time.
 */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const TIMESTAMP_MESSAGE = (field: string) =>
  `${field} must be an ISO 8601 date or timestamp with a zone, e.g. 2025-01-31T00:00:00Z`;

export class CostSummaryQueryDto {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Start of the window (inclusive); default 1970-01-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: TIMESTAMP_MESSAGE('from') })
  @Matches(TIMESTAMP, { message: TIMESTAMP_MESSAGE('from') })
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'End of the window (inclusive); default the time of the request',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: TIMESTAMP_MESSAGE('to') })
  @Matches(TIMESTAMP, { message: TIMESTAMP_MESSAGE('to') })
  to?: string;
}

export class CostCallDto {
  @ApiProperty() stepName: string;
  @ApiProperty({ example: 'openai:gpt-4o-mini', description: 'As written in the step' })
  model: string;
  @ApiProperty() inputTokens: number;
  @ApiProperty() outputTokens: number;
  @ApiProperty({ example: 0.0005253 }) costUsd: number;
  @ApiProperty({ format: 'date-time', description: 'When the provider answered' })
  createdAt: string;
}

export class RunCostDto {
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ example: 0.0005253 }) totalCostUsd: number;
  @ApiProperty() totalInputTokens: number;
  @ApiProperty() totalOutputTokens: number;
  @ApiProperty({ type: [CostCallDto], description: 'One per completed LLM call, oldest first' })
  calls: CostCallDto[];
}

export class ModelCostDto {
  @ApiProperty() model: string;
  @ApiProperty() costUsd: number;
  @ApiProperty() inputTokens: number;
  @ApiProperty() outputTokens: number;
  @ApiProperty() calls: number;
}

export class CostSummaryDto {
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty() totalCostUsd: number;
  @ApiProperty() totalInputTokens: number;
  @ApiProperty() totalOutputTokens: number;
  @ApiProperty({ description: 'Distinct runs with at least one cost record in the window' })
  totalRuns: number;
  @ApiProperty({ type: [ModelCostDto], description: 'Most expensive model first' })
  byModel: ModelCostDto[];
}
