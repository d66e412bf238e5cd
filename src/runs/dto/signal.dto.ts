import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Allow, IsString, Length } from 'class-validator';
import { AsGiven } from '../../common/validation';
import { RunDto } from './run.dto';

/** Characters a preview of a buffered signal's payload keeps (README "Signals"). */
export const SIGNAL_PREVIEW_CHARS = 200;

/** Any JSON value, as the OpenAPI document describes it. */
const ANY_JSON: SchemaObject[] = [
  { type: 'object', additionalProperties: true },
  { type: 'array', items: {} },
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
];

export class SendSignalDto {
  @ApiProperty({
    example: 'payment.received',
    minLength: 1,
    maxLength: 100,
    description:
      "The signal's type (1-100 characters, as an external_event step's signalType): a step " +
      'consumes the signals of its own type (a step without signalType takes any)',
  })
  @IsString()
  @Length(1, 100)
  signalType: string;

  @ApiPropertyOptional({
    oneOf: ANY_JSON,
    nullable: true,
    default: {},
    description:
      "Any JSON value (default {}), kept exactly as given; it becomes the payload of the step's " +
      'output. At most MAX_SIGNAL_PAYLOAD_BYTES (default 65536) UTF-8 bytes of JSON, 413 otherwise',
  })
  @Allow()
  @AsGiven()
  payload?: unknown;
}

export class SignalDto {
  @ApiProperty({ format: 'uuid', description: "The signal's id (in its events)" }) id: string;
  @ApiProperty() signalType: string;
  @ApiProperty({
    enum: ['delivered', 'buffered'],
    description:
      'delivered: the run was waiting on an external_event step of this type and goes on with it, ' +
      'as after a resume; buffered: kept for the next external_event step of this type',
  })
  status: 'delivered' | 'buffered';
}

export class BufferedSignalDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() signalType: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'UTF-8 bytes of the payload as JSON' })
  payloadBytes: number;
  @ApiProperty({
    description:
      `The payload's JSON text, cut after ${SIGNAL_PREVIEW_CHARS} characters (then ending in …); ` +
      'the whole payload is in the step output and the SIGNAL_RECEIVED event once a step takes it',
  })
  payloadPreview: string;
  @ApiProperty({ format: 'date-time', description: 'When the service accepted the signal' })
  receivedAt: string;
}

/** The single-run read: the run with its buffered signals. */
export class RunDetailDto extends RunDto {
  @ApiProperty({
    type: [BufferedSignalDto],
    description:
      'Signals waiting for an external_event step of their type, oldest first (the order they are ' +
      'consumed in); always present, empty when there are none',
  })
  bufferedSignals: BufferedSignalDto[];
}
