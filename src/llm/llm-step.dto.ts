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
import { IsUsdAmount, ON_BUDGET_EXCEEDED, type OnBudgetExceeded } from '../common/usd';
import { AsGiven, Nested } from '../common/validation';
import { BaseStepDto } from '../steps/step-dtos';

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

  /** The most this step's calls may cost in one run (README "Budgets"). */
  @IsOptional() @IsUsdAmount() maxCostUsd?: number;

  /** What a call over a budget does; wins over the definition's. */
  @IsOptional()
  @IsIn(ON_BUDGET_EXCEEDED, {
    message: `onBudgetExceeded must be one of ${ON_BUDGET_EXCEEDED.join(', ')}`,
  })
  onBudgetExceeded?: OnBudgetExceeded;
}
