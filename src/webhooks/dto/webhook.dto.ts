import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsOptional,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { UniqueItems } from '../../common/validation';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../queue/outbox';
import { MAX_WEBHOOK_URL_LENGTH, webhookUrlProblem } from '../webhook-url';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An absolute https URL without credentials; the message says what is wrong with it. */
function IsWebhookUrl(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isWebhookUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => webhookUrlProblem(value) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          webhookUrlProblem(args?.value) ?? 'url is invalid',
      },
    });
}

const EVENT_LIST = WEBHOOK_EVENT_TYPES.join(', ');

export class CreateWebhookDto {
  @ApiProperty({
    description:
      'Absolute https URL without credentials. Deliveries to loopback, private, link-local and ' +
      'metadata addresses are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.',
    example: 'https://example.com/hooks/workflows',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
  })
  @IsWebhookUrl()
  url: string;

  @ApiProperty({
    description: 'Event types to receive (at least one, no duplicates)',
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    example: ['workflow.completed', 'workflow.failed'],
  })
  @IsArray({ message: 'events must be an array of event types' })
  @ArrayNotEmpty({ message: 'events must contain at least one event type' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length, {
    message: `events must contain at most ${WEBHOOK_EVENT_TYPES.length} event types`,
  })
  @UniqueItems({ message: 'events must not contain duplicates' })
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in events must be one of ${EVENT_LIST}`,
  })
  events: WebhookEventType[];
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ example: 'https://example.com/hooks/workflows' }) url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events: WebhookEventType[];
  @ApiProperty({ type: 'boolean', example: true }) isActive: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({
    description:
      'Signing secret: `whsec_` + base64 of 32 random bytes. Shown only in this answer. Key for ' +
      'X-Webhook-Signature (as written) and for the Standard Webhooks headers (the decoded bytes).',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3vUN6HdpeTg=',
  })
  secret: string;
}

export class DeletedWebhookDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'boolean', enum: [true] }) deleted: true;
}

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this status' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) webhookId: string;
  @ApiProperty({
    description: 'The `webhook-id` header: one per event, the same on every attempt',
    example: 'msg_2f1c0e6a9b7d4e0f8a1b2c3d4e5f6a7b',
  })
  messageId: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) event: WebhookEventType;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) workflowRunId: string | null;
  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      'pending: waiting for its next attempt or being sent; delivered: a 2xx answer; failed: ' +
      'every attempt failed or the webhook was deleted',
  })
  status: DeliveryStatus;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Attempts made so far (counted when an attempt starts)',
  })
  attempts: number;
  @ApiProperty({
    nullable: true,
    type: 'integer',
    description: 'HTTP status of the last answer',
  })
  lastStatusCode: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Why the last attempt failed (status and start of the answer, timeout, refused...)',
  })
  lastError: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'When the next attempt is due; while an attempt is in flight, when it is retried should its ' +
      'sender stop. Null once delivered or failed.',
  })
  nextAttemptAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) deliveredAt: string | null;
}

/**
 * The JSON body of every delivery (documented for receivers; no endpoint returns it). `data` by event:
 * workflow.completed {status, output, completedAt}; workflow.failed {status, error, failedStep,
 * failedAt}; workflow.cancelled {status, cancelledAt}; approval.requested {approvalRequestId, stepName,
 * contentKey, content, prompt}; approval.decided {approvalRequestId, stepName, decision, decidedBy,
 * decidedAt}; approval.expired {approvalRequestId, stepName, onTimeout, assignees, approvals,
 * requiredApprovals, expiresAt, expiredAt}; approval.escalated {approvalRequestId, stepName, assignees,
 * escalatedFrom, escalatedAt, expiresAt}.
 */
export class WebhookEventPayloadDto {
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) event: WebhookEventType;
  @ApiProperty({ format: 'uuid' }) workflowRunId: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'workflow.completed: {status, output, completedAt}; workflow.failed: {status, error, ' +
      'failedStep, failedAt}; workflow.cancelled: {status, cancelledAt}; approval.requested: ' +
      '{approvalRequestId, stepName, contentKey, content, prompt} (with an approval policy also ' +
      'assignees, requiredApprovals, expiresAt); approval.decided: ' +
      '{approvalRequestId, stepName, decision, decidedBy, decidedAt}; approval.expired: ' +
      '{approvalRequestId, stepName, onTimeout, assignees, approvals, requiredApprovals, expiresAt, ' +
      'expiredAt}; approval.escalated: {approvalRequestId, stepName, assignees, escalatedFrom, ' +
      'escalatedAt, expiresAt}',
    example: {
      status: 'COMPLETED',
      output: { total: 42 },
      completedAt: '2025-01-01T12:00:00.000Z',
    },
  })
  data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: 'When the event happened' }) timestamp: string;
}
