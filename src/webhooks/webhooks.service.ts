import { Inject, Injectable } from '@nestjs/common';
import { Paginated } from '../common/envelope';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { timeOrderedUuid } from '../common/ids';
import { offsetOf } from '../common/pagination';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import {
  CreateWebhookDto,
  CreatedWebhookDto,
  DeletedWebhookDto,
  ListDeliveriesQueryDto,
  WebhookDeliveryDto,
  WebhookDto,
} from './dto/webhook.dto';
import { generateWebhookSecret } from './signing';
import { isPrivateIpLiteralUrl } from './webhook-url';
import { WebhookSecretsService } from './webhook-secrets.service';
import { DeliveryRow, WebhookRow, WebhooksRepository } from './webhooks.repository';

/** Active webhooks per workspace. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

function toWebhookDto(row: WebhookRow): WebhookDto {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: row.events,
    isActive: row.is_active,
    createdAt: row.created_at.toISOString(),
  };
}

function toDeliveryDto(row: DeliveryRow): WebhookDeliveryDto {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    messageId: row.message_id,
    event: row.event_type,
    workflowRunId: row.run_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

@Injectable()
export class WebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly webhooks: WebhooksRepository,
    private readonly secrets: WebhookSecretsService,
  ) {}

  async create(workspaceId: string, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    if (!this.config.webhooks.allowPrivateNetworks && isPrivateIpLiteralUrl(dto.url)) {
      throw ValidationError.field(
        'url',
        'url must not point to a loopback, private, link-local or reserved address',
      );
    }
    const secret = generateWebhookSecret();
    // The id is chosen here because the encrypted secret is bound to it.
    const id = timeOrderedUuid();
    const row = await this.webhooks.create(
      workspaceId,
      id,
      dto.url,
      dto.events,
      this.secrets.seal(id, secret),
      MAX_WEBHOOKS_PER_WORKSPACE,
    );
    if (row === 'limit') {
      throw ValidationError.field(
        'url',
        `a workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first`,
      );
    }
    return { ...toWebhookDto(row), secret };
  }

  async list(workspaceId: string): Promise<WebhookDto[]> {
    return (await this.webhooks.list(workspaceId)).map(toWebhookDto);
  }

  async delete(workspaceId: string, id: string): Promise<DeletedWebhookDto> {
    if (!(await this.webhooks.delete(workspaceId, id))) {
      throw new NotFoundError('webhook');
    }
    return { id, deleted: true };
  }

  async deliveries(
    workspaceId: string,
    id: string,
    q: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDeliveryDto>> {
    if (!(await this.webhooks.exists(workspaceId, id))) {
      throw new NotFoundError('webhook');
    }
    const { rows, total } = await this.webhooks.deliveries(
      workspaceId,
      id,
      q.status,
      q.pageSize,
      offsetOf(q),
    );
    return new Paginated(rows.map(toDeliveryDto), q.page, q.pageSize, total);
  }

  async retry(workspaceId: string, id: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    const result = await this.webhooks.retry(workspaceId, id, deliveryId);
    if (result === 'not-found') throw new NotFoundError('webhook delivery');
    if ('conflict' in result) {
      throw new ConflictError(
        `delivery is ${result.conflict}; only failed deliveries can be retried`,
      );
    }
    return toDeliveryDto(result);
  }
}
