import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { OptionalTimestamp } from '../../common/timestamps';
import { AsGiven } from '../../common/validation';
import { RUN_EVENT_TYPES } from '../../queue/run-events';
import { RUN_STATUSES, type RunStatus } from '../../queue/statuses';

/** An optional object may be omitted, but an explicit `null` is not an object (unlike IsOptional). */
const isGiven = (_dto: object, value: unknown): boolean => value !== undefined;

export class CreateRunDto {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Length(1, 100)
  definitionId: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    default: {},
    description:
      'Any JSON object, kept exactly as given (keys such as __proto__ are data); at most ' +
      'MAX_RUN_INPUT_BYTES (default 262144) UTF-8 bytes of JSON, 413 otherwise',
  })
  @ValidateIf(isGiven)
  @IsObject()
  @AsGiven()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  idempotencyKey?: string;
}

export class ListRunsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: RUN_STATUSES })
  @IsOptional()
  @IsIn(RUN_STATUSES, { message: `status must be one of ${RUN_STATUSES.join(', ')}` })
  status?: RunStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  definitionId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only runs started by this schedule' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  scheduleId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Only the child runs started by this run\'s workflow steps',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  parentRunId?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Only runs created at or after this time (ISO 8601 date, midnight UTC, or timestamp with a zone)',
  })
  @OptionalTimestamp('createdFrom')
  createdFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only runs created before this time (exclusive); must be after createdFrom',
  })
  @OptionalTimestamp('createdTo')
  createdTo?: string;
}

export class ResumeRunDto {
  @ApiProperty({ example: 'payment.received' })
  @IsString()
  @Length(1, 100)
  signalType: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    default: {},
    description:
      'Any JSON object, kept exactly as given; at most MAX_SIGNAL_PAYLOAD_BYTES (default 65536) ' +
      'UTF-8 bytes of JSON, 413 otherwise',
  })
  @ValidateIf(isGiven)
  @IsObject()
  @AsGiven()
  payload?: Record<string, unknown>;
}

export class RunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ format: 'uuid' }) definitionId: string;
  @ApiProperty({ enum: RUN_STATUSES }) status: RunStatus;
  @ApiProperty({ type: 'object', additionalProperties: true }) input: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  output: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why the run failed' })
  error: string | null;
  @ApiProperty({ nullable: true, type: String }) idempotencyKey: string | null;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The run whose workflow step started this one (a child run); null otherwise',
  })
  parentRunId: string | null;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The step run of the parent that started this run; null for a run without parent',
  })
  parentStepRunId: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Present in the single-run read only: the index of the step in progress, or of the last one ' +
      'executed once the run is terminal',
  })
  currentStepIndex?: number;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The schedule that started the run; null for a run started through the API',
  })
  scheduleId: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class RunTransitionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: RUN_STATUSES }) status: RunStatus;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class RunEventDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) stepRunId: string | null;
  @ApiProperty({ enum: RUN_EVENT_TYPES }) eventType: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class StepRunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) stepIndex: number;
  @ApiProperty() stepName: string;
  @ApiProperty() stepType: string;
  @ApiProperty({ enum: ['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'] })
  status: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Counted from 1' }) attempt: number;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  output: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) startedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) completedAt: string | null;
}
