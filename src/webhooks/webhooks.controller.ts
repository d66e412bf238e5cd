import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace, RequiresScope } from '../common/auth';
import { Paginated } from '../common/envelope';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { SecretInAnswer } from '../idempotency/secret-answer';
import {
  CreateWebhookDto,
  CreatedWebhookDto,
  DeletedWebhookDto,
  ListDeliveriesQueryDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookEventPayloadDto,
} from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiSecurity('api-key')
@ApiExtraModels(WebhookEventPayloadDto)
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @RequiresScope('webhooks:write')
  @HttpCode(201)
  @SecretInAnswer({ field: 'secret', resource: 'webhook', store: 'encrypt' })
  @ApiOperation({
    summary: 'Register a webhook',
    description:
      'HTTPS URL without credentials, at least one event type; at most 20 webhooks per workspace. ' +
      'The answer carries the signing secret, which is never shown again.',
  })
  @ApiEnvelope(CreatedWebhookDto, 201)
  @ApiErrors(...BODY_ERRORS, 401)
  create(
    @CurrentWorkspace() workspaceId: string,
    @Body() dto: CreateWebhookDto,
  ): Promise<CreatedWebhookDto> {
    return this.webhooks.create(workspaceId, dto);
  }

  @Get()
  @RequiresScope('webhooks:read')
  @ApiOperation({ summary: 'List the workspace webhooks, newest first (never the secret)' })
  @ApiEnvelope(WebhookDto, 200, 'array')
  @ApiErrors(401)
  list(@CurrentWorkspace() workspaceId: string): Promise<WebhookDto[]> {
    return this.webhooks.list(workspaceId);
  }

  @Delete(':id')
  @RequiresScope('webhooks:write')
  @ApiOperation({
    summary: 'Delete a webhook',
    description:
      'No attempt starts after this answer: every pending delivery of the webhook fails at once ' +
      '(lastError "webhook deleted"). The webhook and its delivery log answer 404 afterwards.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(DeletedWebhookDto)
  @ApiErrors(401, 404)
  delete(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('webhook') id: string,
  ): Promise<DeletedWebhookDto> {
    return this.webhooks.delete(workspaceId, id);
  }

  @Get(':id/deliveries')
  @RequiresScope('webhooks:read')
  @ApiOperation({
    summary: 'The delivery log of a webhook, newest first, paginated',
    description: 'One entry per event sent to the webhook, with its attempts and last outcome.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(WebhookDeliveryDto, 200, 'page')
  @ApiErrors(400, 401, 404)
  deliveries(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('webhook') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDeliveryDto>> {
    return this.webhooks.deliveries(workspaceId, id, query);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @RequiresScope('webhooks:write')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a failed delivery again',
    description:
      'Back to pending with a fresh attempt budget: the same body and webhook-id, signed afresh. ' +
      '409 unless the delivery is failed.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiParam({ name: 'deliveryId', format: 'uuid', type: String })
  @ApiEnvelope(WebhookDeliveryDto)
  @ApiErrors(401, 404, 409)
  retry(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('webhook') id: string,
    @IdParam('webhook delivery', 'deliveryId', { name: 'id', resource: 'webhook' })
    deliveryId: string,
  ): Promise<WebhookDeliveryDto> {
    return this.webhooks.retry(workspaceId, id, deliveryId);
  }
}
