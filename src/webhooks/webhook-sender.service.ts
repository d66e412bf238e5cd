import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { CoalescedTask } from '../common/coalesced-task';
import { sanitizeText } from '../common/json-safety';
import { PgListener } from '../common/pg-listener';
import { pgPool } from '../common/database';
import { safeRequest } from '../common/safe-http';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { WEBHOOK_READY_CHANNEL } from '../queue/channels';
import { SecretUnreadableError } from './secret-cipher';
import { deliveryHeaders } from './signing';
import { WebhookSecretsService } from './webhook-secrets.service';
import * as SQL from './webhook-sender.sql';

/**
 * Deliveries in flight per process; each holds a socket, not a database connection. One webhook may
 * hold WEBHOOK_ENDPOINT_CONCURRENCY of them, and the claim takes turns across workspaces.
 */
const MAX_IN_FLIGHT = 16;
/** Response bodies are read up to this size (the start of an error answer goes into the log). */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of a non-2xx answer's body is kept in `last_error`. */
const ERROR_BODY_CHARS = 200;
/** A lease outlives the request timeout by this much before another sender may take the row over. */
const LEASE_MARGIN_MS = 10_000;
const SHUTDOWN_GRACE_MAX_MS = 10_000;
const POLL_INTERVAL_NAME = 'webhook-sender-poll';

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  workspace_id: string;
  message_id: string;
  event_type: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
  is_active: boolean;
}

type AttemptResult =
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/**
 * Sends the webhook outbox (design §8). Runs beside the executor (not when EXECUTOR_ENABLED=false):
 * claims due deliveries with FOR UPDATE SKIP LOCKED under a lease, so that any number of replicas never
 * send one attempt twice, signs and POSTs each through the SSRF-safe client, and records the outcome
 * only while the row is still its own. Polling is correct on its own; LISTEN on the outbox channel and
 * timers for scheduled retries only make it prompt.
 */
@Injectable()
export class WebhookSenderService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookSenderService.name);
  readonly senderId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly pool: Pool;
  /** Attempts in flight: delivery id -> its webhook, its workspace and its abort controller. */
  private readonly inFlight = new Map<
    string,
    { webhookId: string; workspaceId: string; abort: AbortController }
  >();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private listener?: PgListener;
  private running = false;
  private readonly filler = new CoalescedTask(() => this.fill());
  private idle?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    db: DataSource,
    private readonly scheduler: SchedulerRegistry,
    private readonly secrets: WebhookSecretsService,
  ) {
    this.pool = pgPool(db);
  }

  private get maxAttempts(): number {
    return this.config.webhooks.retryDelaysMs.length;
  }

  private get leaseMs(): number {
    return this.config.webhooks.timeoutMs + LEASE_MARGIN_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.executor.enabled) return;
    this.running = true;
    this.listener = new PgListener({
      url: this.config.databaseUrl!,
      channels: [WEBHOOK_READY_CHANNEL],
      onNotify: () => this.wake(),
      onReconnect: () => this.wake(),
      logger: this.logger,
      label: 'webhook',
    });
    await this.listener.start();
    const poll = setInterval(() => this.tick(), this.config.executor.pollIntervalMs);
    poll.unref();
    this.scheduler.addInterval(POLL_INTERVAL_NAME, poll);
    this.logger.log(
      `webhook sender ${this.senderId} started: delays ${this.config.webhooks.retryDelaysMs.join(',')} ms, ` +
        `timeout ${this.config.webhooks.timeoutMs} ms, private networks ` +
        (this.config.webhooks.allowPrivateNetworks ? 'allowed' : 'refused'),
    );
    this.wake();
  }

  /** Stops claiming, lets attempts in flight finish (bounded), hands back the ones cut short. */
  async beforeApplicationShutdown(): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    if (this.scheduler.doesExist('interval', POLL_INTERVAL_NAME)) {
      this.scheduler.deleteInterval(POLL_INTERVAL_NAME);
    }
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    if (wasRunning && this.inFlight.size > 0) {
      const grace = Math.min(this.config.webhooks.timeoutMs + 1000, SHUTDOWN_GRACE_MAX_MS);
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise((resolve) => setTimeout(resolve, grace).unref()),
      ]);
    }
    for (const { abort } of this.inFlight.values()) abort.abort(new Error('sender shutting down'));
    if (wasRunning) {
      const released = await this.pool
        .query(SQL.RELEASE_SENDER_DELIVERIES, [this.senderId])
        .catch(() => null);
      if (released?.rowCount) {
        this.logger.log(`handed back ${released.rowCount} unfinished webhook delivery(ies)`);
      }
    }
    await this.listener?.stop();
  }

  /** Asks the loop to look for due deliveries now. */
  wake(): void {
    if (this.running) this.filler.trigger();
  }

  private tick(): void {
    if (!this.running) return;
    this.pool.query(SQL.EXPIRE_EXHAUSTED, [this.maxAttempts]).then(
      (res) => {
        if (res.rowCount) {
          this.logger.warn(
            `${res.rowCount} webhook delivery(ies) failed: sender stopped mid-attempt`,
          );
        }
        this.wake();
      },
      (err: unknown) => this.logger.error({ err }, 'expiring webhook deliveries failed'),
    );
  }

  /**
   * Claims until every slot is busy or nothing more may be claimed: the claim takes turns across
   * workspaces and leaves a webhook's deliveries beyond WEBHOOK_ENDPOINT_CONCURRENCY in the table.
   */
  private async fill(): Promise<void> {
    try {
      while (this.running) {
        const free = MAX_IN_FLIGHT - this.inFlight.size;
        if (free <= 0) break;
        const flying = [...this.inFlight.values()];
        const claimed = await this.pool.query<ClaimedDelivery>(SQL.CLAIM_DELIVERIES, [
          this.senderId,
          free,
          this.leaseMs,
          this.maxAttempts,
          this.config.webhooks.retryDelaysMs[0] ?? 0,
          flying.map((f) => f.webhookId),
          flying.map((f) => f.workspaceId),
          this.config.webhooks.endpointConcurrency,
        ]);
        for (const row of claimed.rows) this.launch(row);
        if (claimed.rows.length < free) break;
      }
    } catch (err) {
      this.logger.error({ err }, 'claiming webhook deliveries failed');
    }
  }

  private launch(row: ClaimedDelivery): void {
    const abort = new AbortController();
    this.inFlight.set(row.id, { webhookId: row.webhook_id, workspaceId: row.workspace_id, abort });
    void (async () => {
      try {
        await this.deliver(row, abort.signal);
      } catch (err) {
        // The row stays claimed until its lease ends; then it comes due again.
        this.logger.error({ err, deliveryId: row.id }, 'recording a webhook delivery failed');
      } finally {
        this.inFlight.delete(row.id);
        if (this.inFlight.size === 0 && this.idle) this.idle();
        this.wake();
      }
    })();
  }

  private async deliver(row: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    if (!row.is_active) {
      await this.pool.query(SQL.CLOSE_DELETED, [row.id, this.senderId]);
      return;
    }
    const result = await this.attempt(row, signal);
    if (signal.aborted && !this.running) return; // handed back by the shutdown
    const args = [row.id, this.senderId, row.attempts];
    if (result.ok) {
      await this.pool.query(SQL.RECORD_DELIVERED, [...args, result.statusCode]);
      return;
    }
    const delay =
      row.attempts < this.maxAttempts ? this.config.webhooks.retryDelaysMs[row.attempts] : null;
    await this.pool.query(SQL.RECORD_FAILURE, [...args, result.statusCode, result.error, delay]);
    this.logger.warn(
      { deliveryId: row.id, webhookId: row.webhook_id, attempt: row.attempts, error: result.error },
      delay === null
        ? 'webhook delivery failed; no attempts left'
        : `webhook delivery failed; next attempt in ${delay} ms`,
    );
    if (delay !== null) this.wakeAfter(delay);
  }

  /** One POST of the stored body, freshly signed. */
  private async attempt(row: ClaimedDelivery, signal: AbortSignal): Promise<AttemptResult> {
    try {
      const res = await safeRequest({
        url: row.url,
        method: 'POST',
        headers: deliveryHeaders({
          // Signed with the plain secret; the row may hold it encrypted (webhook-secrets.service.ts).
          secret: this.secrets.open(row.webhook_id, row.secret),
          webhookId: row.webhook_id,
          messageId: row.message_id,
          event: row.event_type,
          body: row.body,
        }),
        body: Buffer.from(row.body, 'utf8'),
        timeoutMs: this.config.webhooks.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        onOversize: 'truncate',
        allowPrivateNetworks: this.config.webhooks.allowPrivateNetworks,
        signal,
      });
      if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status };
      const text = res.body.toString('utf8', 0, Math.min(res.body.length, ERROR_BODY_CHARS * 4));
      // The endpoint's text is stored: no NUL, and no surrogate half left where the cut falls.
      const snippet = sanitizeText(text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS));
      return {
        ok: false,
        statusCode: res.status,
        error: `endpoint answered ${res.status}${snippet ? `: ${snippet}` : ''}`,
      };
    } catch (err) {
      // An unreadable secret fails the attempt like any other failure, with a message fit for the
      // tenant; the operator gets the key id.
      if (err instanceof SecretUnreadableError) {
        this.logger.error(
          { webhookId: row.webhook_id, keyId: err.keyId },
          `${err.message}; ${err.operatorHint}`,
        );
      }
      // OutboundRequestError says why: refused address, timeout, certificate, connection refused...
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, statusCode: null, error: sanitizeText(message, 500) };
    }
  }

  /** A scheduled retry is found by the poll anyway; the timer makes it go out on time. */
  private wakeAfter(ms: number): void {
    if (!this.running) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, ms + 20);
    timer.unref();
    this.retryTimers.add(timer);
  }
}
