import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { AsGiven } from '../../common/validation';
import { NEXT_FIRE_TIMES } from '../cron';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../fire-plan';

/** The longest catch-up window: a week. A fire older than that is history, not something to start. */
export const MAX_CATCHUP_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** The longest jitter: an hour. */
export const MAX_JITTER_MS = 3600 * 1000;
export const DEFAULT_CATCHUP_WINDOW_MS = 60_000;

/** An optional value may be omitted, but an explicit `null` is not a value (unlike IsOptional). */
const isGiven = (_dto: object, value: unknown): boolean => value !== undefined;

const CRON_DESCRIPTION =
  'Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. ' +
  'Lists, ranges, steps and names (`MON-FRI`, `JAN`) as in crontab; `L`, `W` and `#` as croner ' +
  'reads them. Evaluated in `timezone`, DST included. Never more often than once a second.';
const TIMEZONE_DESCRIPTION =
  'IANA time zone name (`Europe/Berlin`), answered as the runtime spells it';
const INPUT_DESCRIPTION =
  'The input of every run the schedule starts: any JSON object, kept exactly as given; at most ' +
  'MAX_RUN_INPUT_BYTES (default 262144) UTF-8 bytes of JSON, 413 otherwise';
const OVERLAP_DESCRIPTION =
  'While a run this schedule started is not finished: `skip` passes fires over, `buffer_one` ' +
  'remembers one fire and starts it when the run ends (further fires are passed over), `allow` ' +
  'starts every fire';
const CATCHUP_DESCRIPTION =
  'After every replica was down: the latest missed fire starts once if it is at most this old ' +
  '(older missed fires are counted in skippedFires). A fire is never missed less than 10 s late.';
const JITTER_DESCRIPTION =
  'Each fire starts up to this much later, by a delay fixed per fire (the same on every replica)';

export class CreateScheduleDto {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Length(1, 100)
  definitionId: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'nightly batch' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiProperty({ maxLength: 255, example: '0 2 * * *', description: CRON_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  cron: string;

  @ApiPropertyOptional({ default: 'UTC', maxLength: 100, description: TIMEZONE_DESCRIPTION })
  @ValidateIf(isGiven)
  @IsString()
  @Length(1, 100)
  timezone?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    default: {},
    description: INPUT_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsObject()
  @AsGiven()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: OVERLAP_POLICIES,
    default: 'skip',
    description: OVERLAP_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsIn(OVERLAP_POLICIES, {
    message: `overlapPolicy must be one of ${OVERLAP_POLICIES.join(', ')}`,
  })
  overlapPolicy?: OverlapPolicy;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_CATCHUP_WINDOW_MS,
    default: DEFAULT_CATCHUP_WINDOW_MS,
    description: CATCHUP_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsInt()
  @Min(0)
  @Max(MAX_CATCHUP_WINDOW_MS)
  catchupWindowMs?: number;

  @ApiPropertyOptional({ default: false, description: 'A paused schedule starts no runs' })
  @ValidateIf(isGiven)
  @IsBoolean()
  paused?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_JITTER_MS,
    default: 0,
    description: JITTER_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsInt()
  @Min(0)
  @Max(MAX_JITTER_MS)
  jitterMs?: number;
}

/**
 * Any subset of the fields of a schedule but its definition. A change of cron or timezone, and a
 * resume, compute the next fire from now (fires missed while paused are not caught up).
 */
export class UpdateScheduleDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, nullable: true, type: String })
  @ValidateIf((_dto: object, value: unknown) => value !== undefined && value !== null)
  @IsString()
  @Length(1, 200)
  name?: string | null;

  @ApiPropertyOptional({ maxLength: 255, description: CRON_DESCRIPTION })
  @ValidateIf(isGiven)
  @IsString()
  @Length(1, 255)
  cron?: string;

  @ApiPropertyOptional({ maxLength: 100, description: TIMEZONE_DESCRIPTION })
  @ValidateIf(isGiven)
  @IsString()
  @Length(1, 100)
  timezone?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: INPUT_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsObject()
  @AsGiven()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: OVERLAP_POLICIES, description: OVERLAP_DESCRIPTION })
  @ValidateIf(isGiven)
  @IsIn(OVERLAP_POLICIES, {
    message: `overlapPolicy must be one of ${OVERLAP_POLICIES.join(', ')}`,
  })
  overlapPolicy?: OverlapPolicy;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_CATCHUP_WINDOW_MS,
    description: CATCHUP_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsInt()
  @Min(0)
  @Max(MAX_CATCHUP_WINDOW_MS)
  catchupWindowMs?: number;

  @ApiPropertyOptional({ description: 'true pauses the schedule; false resumes it' })
  @ValidateIf(isGiven)
  @IsBoolean()
  paused?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_JITTER_MS,
    description: JITTER_DESCRIPTION,
  })
  @ValidateIf(isGiven)
  @IsInt()
  @Min(0)
  @Max(MAX_JITTER_MS)
  jitterMs?: number;
}

export class ListSchedulesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the schedules of this definition' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  definitionId?: string;
}

export class ScheduleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ format: 'uuid' }) definitionId: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ description: CRON_DESCRIPTION }) cron: string;
  @ApiProperty({ description: TIMEZONE_DESCRIPTION }) timezone: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) input: Record<string, unknown>;
  @ApiProperty({ enum: OVERLAP_POLICIES, description: OVERLAP_DESCRIPTION })
  overlapPolicy: OverlapPolicy;
  @ApiProperty({ type: 'integer', minimum: 0, description: CATCHUP_DESCRIPTION })
  catchupWindowMs: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: JITTER_DESCRIPTION }) jitterMs: number;
  @ApiProperty() paused: boolean;
  @ApiProperty({
    type: [String],
    format: 'date-time',
    description:
      `The next ${NEXT_FIRE_TIMES} fire times (ISO UTC, before jitter); empty while paused or ` +
      'when the expression fires no more',
  })
  nextFireTimes: string[];
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'The fire time of the latest run the schedule started (trigger now not included)',
  })
  lastFiredAt: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'A fire buffer_one holds until the running run ends',
  })
  bufferedFireAt: string | null;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Fires that started no run: refused by the overlap policy, or missed beyond the catch-up ' +
      'window (counted up to 1000 per outage)',
  })
  skippedFires: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class DeletedScheduleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'boolean', enum: [true] }) deleted: true;
}
