import { IsInt, IsNumber, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_TIMER_MS } from '../common/timers';
import { Nested } from '../common/validation';

/** A year: the longest due time kept in PostgreSQL (a wait, an external event's timeout). */
export const MAX_DUE_IN_MS = 31_536_000_000;

/** Durations that become a timer in the process cannot exceed what a timer can wait. */
const TIMER_LIMIT = {
  message: `$property must not be greater than ${MAX_TIMER_MS} (the longest delay a timer can wait, about 24.8 days)`,
};

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

/**
 * The fields every step has. Each step type's DTO extends this class and is validated with unknown
 * fields rejected (design §4, §5); rules across steps (unique names, jump targets) and each type's
 * own check run in validate-steps.ts.
 */
export abstract class BaseStepDto {
  /** One of the registered types, checked by validateSteps before this DTO is looked at. */
  @IsString() type: string;

  @IsString() @Length(1, 100) name: string;

  @IsOptional() @IsString() @Length(1, 200) outputKey?: string;

  @IsOptional() @IsObject() @Nested(() => RetryPolicyDto) retry?: RetryPolicyDto;

  /** A timer in the process (the step's timeout, or each llm call's), except for external_event. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TIMER_MS, TIMER_LIMIT) timeoutMs?: number;
}
