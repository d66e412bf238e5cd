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
  IsOptional,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
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
}

export class DefinitionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty() version: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: 'array', items: STEP_SCHEMA }) steps: StepDefinition[];
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
