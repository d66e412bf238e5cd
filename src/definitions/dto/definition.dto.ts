import {
  ApiProperty,
  ApiPropertyOptional,
  type OpenAPIObject,
  type SchemaObject,
} from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
import {
  IsUsdAmount,
  MAX_USD_AMOUNT,
  ON_BUDGET_EXCEEDED,
  type OnBudgetExceeded,
} from '../../common/usd';
import { AsGiven } from '../../common/validation';
import type { StepDefinition } from '../../steps/step-definition';

export const MAX_STEPS_PER_DEFINITION = 200;

function stepsDescription(types: readonly string[]): string {
  return (
    `Ordered steps; each has type (${types.join(', ')}), a unique ` +
    'name and the fields of its type (see README). At most MAX_DEFINITION_BYTES (default ' +
    '65536) UTF-8 bytes of JSON (413); a workspace holds at most MAX_DEFINITIONS_PER_WORKSPACE ' +
    '(default 500) definitions, every version counting (409).'
  );
}

/**
 * One step: `type` and `name`, plus the fields of its type. The fields are not listed: step types are
 * registered at boot (an extension's too), and the README describes the built-in ones.
 */
const STEP_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['type', 'name'],
  properties: { type: { type: 'string' }, name: { type: 'string' } },
  additionalProperties: true,
};

/** A run's budget (README "Budgets"): the definition's, beside each llm step's own. */
const MAX_COST_USD = {
  type: 'number',
  minimum: 0.000001,
  maximum: MAX_USD_AMOUNT,
  description:
    "The most one run's own LLM calls may cost, in USD (a positive number with at most 6 decimal " +
    "places). A call it cannot cover does not start; an llm step's own maxCostUsd applies as well.",
} as const;

const ON_EXCEEDED = {
  enum: ON_BUDGET_EXCEEDED,
  description:
    "What a call over a budget (the workspace's month, the run's or the step's maxCostUsd) does: " +
    "fail the step (without retries), or pause the run on an approval request. An llm step's own " +
    'onBudgetExceeded wins over this one.',
} as const;

export class CreateDefinitionDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'order-fulfilment' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ minLength: 1, maxLength: 50, example: '1.0.0' })
  @IsString()
  @Length(1, 50)
  version: string;

  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  /** Described by documentStepTypes(), which knows the registered step types. */
  @ApiProperty({
    example: [
      { type: 'task', name: 'prepare', handler: 'transform', config: { expression: '{"n": 1}' } },
      { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
    ],
    type: 'array',
    minItems: 1,
    maxItems: MAX_STEPS_PER_DEFINITION,
    items: STEP_SCHEMA,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_STEPS_PER_DEFINITION)
  @AsGiven()
  steps: unknown[];

  @ApiPropertyOptional({ ...MAX_COST_USD, example: 0.5 })
  @IsOptional()
  @IsUsdAmount()
  maxCostUsd?: number;

  @ApiPropertyOptional({ ...ON_EXCEEDED, default: 'fail' })
  @IsOptional()
  @IsIn(ON_BUDGET_EXCEEDED, {
    message: `onBudgetExceeded must be one of ${ON_BUDGET_EXCEEDED.join(', ')}`,
  })
  onBudgetExceeded?: OnBudgetExceeded;
}

export class DefinitionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty() version: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: 'array', items: STEP_SCHEMA }) steps: StepDefinition[];
  @ApiPropertyOptional({ ...MAX_COST_USD, description: 'As given; absent when not given' })
  maxCostUsd?: number;
  @ApiPropertyOptional({ ...ON_EXCEEDED, description: 'As given; absent when not given' })
  onBudgetExceeded?: OnBudgetExceeded;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/**
 * Writes the description of CreateDefinitionDto's `steps` into the OpenAPI document: it lists the
 * step types, which are registered at boot (an extension's too), so no decorator can know them.
 */
export function documentStepTypes(document: OpenAPIObject, types: readonly string[]): void {
  const properties = (document.components?.schemas?.[CreateDefinitionDto.name] as SchemaObject)
    .properties!;
  // Second, where @ApiProperty puts a description: the document reads as a decorator would write it.
  const { type, ...rest } = properties.steps as SchemaObject;
  properties.steps = { type, description: stepsDescription(types), ...rest };
}
