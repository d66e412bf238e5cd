import { Module } from '@nestjs/common';
import { WebhookSecretsService } from './webhook-secrets.service';
import { WebhookSenderService } from './webhook-sender.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhook registrations, the delivery log, and the sender that drains the outbox the executor and the
 * run transitions write (src/webhooks/outbox.ts).
 */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookSecretsService, WebhookSenderService],
})
export class WebhooksModule {}
