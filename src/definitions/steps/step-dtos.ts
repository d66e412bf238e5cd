import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_TIMER_MS } from '../../common/timers';

/** A year: the longest due time kept in PostgreSQL (a wait, an external event's timeout). */
const MAX_DUE_IN_MS = 31_536_000_000;

/** Durations that become a timer in the process cannot exceed what a timer can wait. */
const TIMER_LIMIT = {
  message: `$property must not be greater than ${MAX_TIMER_MS} (the longest delay a timer can wait, about 24.8 days)`,
};
import { AsGiven, Nested } from '../../common/validation';

/**
 * One class per step type (design §4, §5), validated with unknown fields rejected. Cross-step rules
 * (unique names, jump targets, expressions) live in validate-steps.ts.
 */
export class RetryPolicyDto {
  @IsOptional() @IsInt() @Min(1) @Max(20) maxAttempts?: number;
  @IsOptional() @IsInt() @Min(0) @Max(86_400_000) initialDelayMs?: number;
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1)
  @Max(100)
  backoffMultiplier?: number;
  @IsOptional() @IsInt() @Min(0) @Max(86_400_000) maxDelayMs?: number;
}

abstract class BaseStepDto {
  @IsString()
  @IsIn(['task', 'wait', 'condition', 'external_event', 'llm', 'approval'])
  type: string;

  @IsString() @Length(1, 100) name: string;

  @IsOptional() @IsString() @Length(1, 200) outputKey?: string;

  @IsOptional() @IsObject() @Nested(() => RetryPolicyDto) retry?: RetryPolicyDto;

  /** A timer in the process (the step's timeout, or each llm call's), except for external_event. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TIMER_MS, TIMER_LIMIT) timeoutMs?: number;
}

export class TaskStepDto extends BaseStepDto {
  @IsString() @Length(1, 100) handler: string;
  @IsOptional() @IsObject() @AsGiven() config?: Record<string, unknown>;
}

export class WaitStepDto extends BaseStepDto {
  @IsOptional() @IsInt() @Min(0) @Max(MAX_DUE_IN_MS) durationMs?: number;
  @IsOptional() @IsString() @Length(1, 200) until?: string;
}

export class ConditionStepDto extends BaseStepDto {
  @IsString() @Length(1, 2000) expression: string;
  @IsOptional() @IsString() @Length(1, 100) then?: string;
  @IsOptional() @IsString() @Length(1, 100) else?: string;
}

export class ExternalEventStepDto extends BaseStepDto {
  @IsOptional() @IsString() @Length(1, 100) signalType?: string;
  /**
   * A due time in PostgreSQL, not a timer: it may be as long as a wait. These rules replace the base
   * class's (class-validator keeps a subclass's rules of a kind over the inherited ones); the
   * initializer only lets the field be redeclared, as every field starts undefined anyway.
   */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_DUE_IN_MS) override timeoutMs?: number = undefined;
}

export class LlmMessageDto {
  @IsString() @IsIn(['system', 'user', 'assistant']) role: string;
  @IsString() @MaxLength(100_000) content: string;
}

export class LlmToolDto {
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'name must be 1-64 letters, digits, _ or -' })
  name: string;
  @IsOptional() @IsString() @MaxLength(1000) description?: string;
  @IsString() @Length(1, 100) handler: string;
  @IsObject() @AsGiven() parameters: Record<string, unknown>;
}

export class LlmGuardrailsDto {
  @IsOptional() @IsInt() @Min(1) @Max(10_000_000) maxOutputChars?: number;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  blockedPatterns?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  requiredPatterns?: string[];
  @IsOptional() @IsObject() @AsGiven() jsonSchema?: Record<string, unknown>;
}

export class LlmStepDto extends BaseStepDto {
  @IsString() @Length(1, 200) model: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @IsObject({ each: true })
  @Nested(() => LlmMessageDto, { each: true })
  messages: LlmMessageDto[];

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number;
  @IsOptional() @IsInt() @Min(1) @Max(100_000) maxTokens?: number;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  fallbackModels?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @Nested(() => LlmToolDto, { each: true })
  tools?: LlmToolDto[];

  @IsOptional()
  @IsObject()
  @Nested(() => LlmGuardrailsDto)
  guardrails?: LlmGuardrailsDto;

  @IsOptional() @IsString() @IsIn(['text', 'json']) responseFormat?: string;
  @IsOptional() @IsInt() @Min(0) @Max(20) maxToolRoundtrips?: number;
}

export class ApprovalStepDto extends BaseStepDto {
  @IsString() @Length(1, 200) contentKey: string;
  @IsOptional() @IsString() @MaxLength(10_000) prompt?: string;
  @IsOptional() @IsString() @Length(1, 100) regenerateFrom?: string;
}

export const STEP_DTO_BY_TYPE = {
  task: TaskStepDto,
  wait: WaitStepDto,
  condition: ConditionStepDto,
  external_event: ExternalEventStepDto,
  llm: LlmStepDto,
  approval: ApprovalStepDto,
} as const;
