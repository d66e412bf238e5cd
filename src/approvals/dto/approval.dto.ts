import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { AsGiven } from '../../common/validation';

export const DECISIONS = ['approved', 'rejected', 'edited'] as const;
export type Decision = (typeof DECISIONS)[number];

export const APPROVAL_ORDERS = ['newest', 'oldest'] as const;
export type ApprovalOrder = (typeof APPROVAL_ORDERS)[number];

export class ListApprovalRequestsQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: '`true`: undecided requests only; `false`: decided ones only; omitted: all',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'pending must be true or false' })
  pending?: 'true' | 'false';

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Continue after this request: only requests older than it (the `Link: rel="next"` header of ' +
      'an answer that was cut at APPROVAL_LIST_MAX_ITEMS names it)',
  })
  @IsOptional()
  @IsUUID('all', { message: 'before must be the id of an approval request' })
  before?: string;

  @ApiPropertyOptional({
    enum: APPROVAL_ORDERS,
    default: 'newest',
    description:
      '`newest` first (continued with `before`), or `oldest` first (continued with `after`): the ' +
      'order of an inbox that is worked through from the longest-waiting request',
  })
  @IsOptional()
  @IsIn(APPROVAL_ORDERS, { message: `order must be one of ${APPROVAL_ORDERS.join(', ')}` })
  order?: ApprovalOrder;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'With order=oldest: continue after this request, only newer ones (the `Link: rel="next"` ' +
      'header of an answer that was cut names it)',
  })
  @IsOptional()
  @IsUUID('all', { message: 'after must be the id of an approval request' })
  after?: string;
}

export class ApprovalCountDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Undecided requests: as many as `pending=true` lists',
  })
  pending: number;
}

export class DecideApprovalDto {
  @ApiProperty({ enum: DECISIONS })
  @IsIn(DECISIONS, { message: `decision must be one of ${DECISIONS.join(', ')}` })
  decision: Decision;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "Required when decision is `edited`: replaces the state value at the step's contentKey. " +
      'When the content under review was wrapped as `{value}` (the state value was not an object), ' +
      '`{value: x}` puts `x` back. Ignored for other decisions. Kept exactly as given; at most ' +
      'MAX_APPROVAL_CONTENT_BYTES (default 65536) UTF-8 bytes of JSON, 413 otherwise.',
  })
  @ValidateIf((o: DecideApprovalDto) => o.decision === 'edited' || o.editedContent !== undefined)
  @IsObject({ message: 'editedContent must be an object (required when decision is edited)' })
  @AsGiven()
  editedContent?: Record<string, unknown>;

  @ApiPropertyOptional({
    maxLength: 255,
    description:
      'Who decided; default `api-key:<id of the calling key>`. Ignored through a console session, ' +
      'whose reviewer name is recorded instead.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  decidedBy?: string;

  @ApiPropertyOptional({
    maxLength: 2000,
    description:
      'Reviewer comment. On a rejection with regeneration it is put in the state at ' +
      '`rejection.comment`, so the regenerating step can be prompted with it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  comment?: string;
}

export class ApprovalRequestDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid' }) stepRunId: string;
  @ApiProperty() stepName: string;
  @ApiProperty({ example: 'draft.text' }) contentKey: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The state value at contentKey; a non-object is wrapped as `{value}`',
  })
  content: Record<string, unknown>;
  @ApiProperty() prompt: string;
  // OpenAPI 3.0: a nullable enum admits null only when null is one of its values.
  @ApiProperty({ enum: [...DECISIONS, null] as unknown as string[], nullable: true, type: String })
  decision: Decision | null;
  @ApiProperty({ nullable: true, type: String }) decidedBy: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) decidedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) comment: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  editedContent: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ApprovalDecisionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid' }) stepRunId: string;
  @ApiProperty() stepName: string;
  @ApiProperty({ enum: DECISIONS }) decision: Decision;
  @ApiProperty() decidedBy: string;
  @ApiProperty({ format: 'date-time' }) decidedAt: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}
