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
import { ON_TIMEOUT, type OnTimeout } from '../approval-step.dto';

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

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description:
      "Only the requests for this assignee (a name or group of the approval step's `assignees`, " +
      'exactly as written; after an escalation, of its `escalateTo.assignees`). Combines with the ' +
      'other filters, both orders and their cursors.',
  })
  @IsOptional()
  @IsString({ message: 'assignee must be a string' })
  @Length(1, 200, { message: 'assignee must be 1-200 characters' })
  assignee?: string;
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

/** One reviewer's decision on a request (an approval toward its quorum, or the final decision). */
export class ApprovalVoteDto {
  @ApiProperty() decidedBy: string;
  @ApiProperty({ enum: DECISIONS }) decision: Decision;
  @ApiProperty({ format: 'date-time' }) decidedAt: string;
  @ApiProperty({ nullable: true, type: String }) comment: string | null;
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
  @ApiProperty({
    type: [String],
    description:
      "Names or groups the request is for (the step's `assignees`; `[]` without). After an " +
      'escalation, the escalated ones (`escalateTo.assignees`); the earlier ones are in `escalatedFrom`.',
  })
  assignees: string[];
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "Distinct deciders who must approve (the step's `requiredApprovals`, default 1)",
  })
  requiredApprovals: number;
  @ApiProperty({
    type: [ApprovalVoteDto],
    description:
      "The reviewers' decisions so far, oldest first: each approval toward the quorum, then the " +
      'decision that decided the request. A decision made by a timeout is not one of them.',
  })
  approvals: ApprovalVoteDto[];
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'When the request times out (null without a timeout); after an escalation, the second timeout',
  })
  expiresAt: string | null;
  // OpenAPI 3.0: a nullable enum admits null only when null is one of its values.
  @ApiProperty({
    enum: [...ON_TIMEOUT, null] as unknown as string[],
    nullable: true,
    type: String,
    description: 'What its last timeout does (null without a timeout)',
  })
  onTimeout: OnTimeout | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'When its first timeout escalated it to `escalateTo.assignees` (null: not escalated)',
  })
  escalatedAt: string | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'The assignees before the escalation (null: not escalated)',
  })
  escalatedFrom: string[] | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'When it expired, undecided at its last timeout (null otherwise); its `onTimeout` then ' +
      'applied: `reject` and `approve` decided it as `system:timeout`, `fail` left it undecided',
  })
  expiredAt: string | null;
}

export class ApprovalDecisionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid' }) stepRunId: string;
  @ApiProperty() stepName: string;
  @ApiProperty({
    enum: [...DECISIONS, null] as unknown as string[],
    nullable: true,
    type: String,
    description:
      "The request's decision. Null only after an approval short of a quorum " +
      '(`requiredApprovals` > 1): the request is still undecided and `approvals` shows the progress.',
  })
  decision: Decision | null;
  @ApiProperty({ nullable: true, type: String, description: 'Null while undecided (see decision)' })
  decidedBy: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Null while undecided (see decision)',
  })
  decidedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) requiredApprovals: number;
  @ApiProperty({
    type: [ApprovalVoteDto],
    description: "The reviewers' decisions so far, this one last",
  })
  approvals: ApprovalVoteDto[];
}
