import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { SecretCipher, SecretUnreadableError } from '../common/secret-cipher';
import { WebhooksRepository } from './webhooks.repository';

/** Rows rewritten per transaction by the start-up pass. */
export const SECRET_REWRITE_BATCH = 100;

/**
 * Webhook secrets at rest (README "Encryption at rest"). With ENCRYPTION_KEY, new secrets are stored
 * encrypted (common/secret-cipher.ts) and ENCRYPTION_KEY_PREVIOUS keys still decrypt. Whenever keys are
 * configured, every process rewrites at start-up, in the background and in batches, each stored
 * secret that is not in the current form: plain rows and rows of a former key end up under the
 * current key (or back in plain text when only former keys are left, to turn encryption off).
 * Without any key, secrets stay in plain text and a warning says so.
 */
@Injectable()
export class WebhookSecretsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookSecretsService.name);
  private readonly cipher: SecretCipher;
  private rewriting?: Promise<void>;
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly webhooks: WebhooksRepository,
  ) {
    this.cipher = new SecretCipher(config.encryption.key, config.encryption.previousKeys);
  }

  onApplicationBootstrap(): void {
    if (this.cipher.currentKeyId === undefined) {
      this.logger.warn(
        'ENCRYPTION_KEY is not set: webhook secrets are stored in plain text in the database',
      );
    }
    if (!this.cipher.hasKeys) return;
    this.rewriting = this.rewriteAll().catch((err: unknown) =>
      this.logger.error(
        { err },
        'rewriting webhook secrets under the current key stopped; it resumes at the next start',
      ),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.rewriting;
  }

  /** The stored form of a new webhook's secret. */
  seal(webhookId: string, plain: string): string {
    return this.cipher.seal(webhookId, plain);
  }

  /** The plain secret to sign with; throws SecretUnreadableError when no configured key can read it. */
  open(webhookId: string, stored: string): string {
    return this.cipher.open(webhookId, stored);
  }

  private async rewriteAll(): Promise<void> {
    const target = this.cipher.currentKeyId
      ? `encrypted with key ${this.cipher.currentKeyId}`
      : 'in plain text';
    let afterId: string | null = null;
    let rewritten = 0;
    const unreadable: Array<{ webhookId: string; keyId: string }> = [];
    while (!this.stopping) {
      const batch = await this.webhooks.rewriteSecrets(
        afterId,
        this.cipher.currentPrefix ?? null,
        SECRET_REWRITE_BATCH,
        (id, stored) => {
          try {
            return this.cipher.seal(id, this.cipher.open(id, stored));
          } catch (err) {
            if (!(err instanceof SecretUnreadableError)) throw err;
            unreadable.push({ webhookId: id, keyId: err.keyId });
            return undefined;
          }
        },
      );
      rewritten += batch.rewritten;
      if (batch.lastId === null) break;
      afterId = batch.lastId;
    }
    if (this.stopping) return;
    if (rewritten > 0 || unreadable.length === 0) {
      this.logger.log(
        rewritten > 0
          ? `stored ${rewritten} webhook secret(s) ${target}`
          : `every webhook secret is stored ${target}`,
      );
    }
    if (unreadable.length > 0) {
      const keyIds = [...new Set(unreadable.map((u) => u.keyId))];
      this.logger.error(
        { webhookIds: unreadable.slice(0, 20).map((u) => u.webhookId), keyIds },
        `${unreadable.length} webhook secret(s) cannot be decrypted with the configured keys ` +
          `(written with key id ${keyIds.join(', ')}); their deliveries fail until that key is ` +
          'added to ENCRYPTION_KEY_PREVIOUS',
      );
    }
  }
}
