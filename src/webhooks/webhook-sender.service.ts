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
import { sanitizeText } from '../common/json-safety';
import { LeasedPoller } from '../common/leased-poller';
import { pgPool } from '../common/database';
import { OutboundRequestError, safeRequest } from '../common/safe-http';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Metrics, type DeliveryOutcome } from '../metrics/metrics';
import { WEBHOOK_READY_CHANNEL } from '../queue/channels';
import { recordDeliveryOutcome, traceDelivery } from '../tracing/spans';
import { SecretUnreadableError } from '../common/secret-cipher';
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
  /** The traceparent stored with the delivery's run, if any: its span links to it. */
  run_traceparent: string | null;
}

type AttemptResult = { outcome: DeliveryOutcome } & (
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string }
);

/** The metrics label of an answer's status. */
function statusClass(status: number): DeliveryOutcome {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return status >= 200 ? '2xx' : 'error';
}

/** The metrics label of an attempt that got no answer. */
function failureClass(err: unknown): DeliveryOutcome {
  if (!(err instanceof OutboundRequestError)) return 'error';
  switch (err.kind) {
    case 'blocked':
      return 'refused';
    case 'timeout':
      return 'timeout';
    case 'invalid-url':
      return 'error';
    case 'network':
    case 'too-large':
    case 'aborted':
      return 'network';
  }
}

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
  readonly senderId: string;
  private readonly pool: Pool;
  /** Attempts in flight, MAX_IN_FLIGHT at most. */
  private readonly poller: LeasedPoller<ClaimedDelivery>;
  private readonly retryTimers = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    db: DataSource,
    scheduler: SchedulerRegistry,
    private readonly secrets: WebhookSecretsService,
    private readonly metrics: Metrics,
  ) {
    this.pool = pgPool(db);
    this.poller = new LeasedPoller<ClaimedDelivery>(this.logger, scheduler, {
      pollName: POLL_INTERVAL_NAME,
      pollIntervalMs: config.executor.pollIntervalMs,
      poll: () => this.tick(),
      capacity: MAX_IN_FLIGHT,
      claim: (free) => this.claim(free),
      claimFailed: 'claiming webhook deliveries failed',
      run: (row, signal) =>
        traceDelivery(row, () => this.deliver(row, signal)).catch((err: unknown) => {
          // The row stays claimed until its lease ends; then it comes due again.
          this.logger.error({ err, deliveryId: row.id }, 'recording a webhook delivery failed');
        }),
      listen: { url: config.databaseUrl!, channels: [WEBHOOK_READY_CHANNEL], label: 'webhook' },
      graceMs: Math.min(config.webhooks.timeoutMs + 1000, SHUTDOWN_GRACE_MAX_MS),
      abortReason: 'sender shutting down',
      releaseAll: () => this.releaseAll(),
    });
    this.senderId = this.poller.workerId;
  }

  private get maxAttempts(): number {
    return this.config.webhooks.retryDelaysMs.length;
  }

  private get leaseMs(): number {
    return this.config.webhooks.timeoutMs + LEASE_MARGIN_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.executor.enabled) return;
    await this.poller.start();
    this.logger.log(
      `webhook sender ${this.senderId} started: delays ${this.config.webhooks.retryDelaysMs.join(',')} ms, ` +
        `timeout ${this.config.webhooks.timeoutMs} ms, private networks ` +
        (this.config.webhooks.allowPrivateNetworks ? 'allowed' : 'refused'),
    );
    this.wake();
  }

  /** Stops claiming, lets attempts in flight finish (bounded), hands back the ones cut short. */
  async beforeApplicationShutdown(): Promise<void> {
    // The poll finds these retries anyway; their timers would only wake a loop that is stopping.
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await this.poller.stop();
  }

  /** Asks the loop to look for due deliveries now. */
  wake(): void {
    this.poller.wake();
  }

  private async releaseAll(): Promise<void> {
    const released = await this.pool
      .query(SQL.RELEASE_SENDER_DELIVERIES, [this.senderId])
      .catch(() => null);
    if (released?.rowCount) {
      this.logger.log(`handed back ${released.rowCount} unfinished webhook delivery(ies)`);
    }
  }

  private tick(): void {
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
   * Claims up to `free` due deliveries: the claim takes turns across workspaces and leaves a webhook's
   * deliveries beyond WEBHOOK_ENDPOINT_CONCURRENCY in the table.
   */
  private async claim(free: number): Promise<ClaimedDelivery[]> {
    const flying = this.poller.items();
    const claimed = await this.pool.query<ClaimedDelivery>(SQL.CLAIM_DELIVERIES, [
      this.senderId,
      free,
      this.leaseMs,
      this.maxAttempts,
      this.config.webhooks.retryDelaysMs[0] ?? 0,
      flying.map((f) => f.webhook_id),
      flying.map((f) => f.workspace_id),
      this.config.webhooks.endpointConcurrency,
    ]);
    return claimed.rows;
  }

  private async deliver(row: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    if (!row.is_active) {
      await this.pool.query(SQL.CLOSE_DELETED, [row.id, this.senderId]);
      return;
    }
    const result = await this.attempt(row, signal);
    recordDeliveryOutcome(result);
    if (signal.aborted && !this.poller.running) return; // handed back by the shutdown
    this.metrics.webhookDelivery(result.outcome);
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
      const outcome = statusClass(res.status);
      if (outcome === '2xx') return { ok: true, statusCode: res.status, outcome };
      const text = res.body.toString('utf8', 0, Math.min(res.body.length, ERROR_BODY_CHARS * 4));
      // The endpoint's text is stored: no NUL, and no surrogate half left where the cut falls.
      const snippet = sanitizeText(text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS));
      return {
        ok: false,
        outcome,
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
      return {
        ok: false,
        outcome: failureClass(err),
        statusCode: null,
        error: sanitizeText(message, 500),
      };
    }
  }

  /** A scheduled retry is found by the poll anyway; the timer makes it go out on time. */
  private wakeAfter(ms: number): void {
    if (!this.poller.running) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, ms + 20);
    timer.unref();
    this.retryTimers.add(timer);
  }
}
