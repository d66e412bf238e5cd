import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { IdempotencyRepository } from './idempotency.repository';

export const CLEANUP_JOB = 'idempotency-cleanup';
/** Expired keys deleted per statement: each is one short transaction. */
export const CLEANUP_BATCH = 1000;
/** Statements per tick at most, so that a tick is bounded (100,000 keys); the next tick goes on. */
export const CLEANUP_MAX_BATCHES = 100;
/**
 * How long a holder keeps the lease beyond its interval: a holder that stops (crashes, is stopped)
 * hands the job to another replica within two intervals plus this.
 */
const LEASE_SLACK_MS = 10_000;

/**
 * Deletes expired Idempotency-Keys (README "Idempotent requests"). Every process ticks every
 * IDEMPOTENCY_CLEANUP_INTERVAL_MS, but only the one holding the lease `idempotency-cleanup` in
 * `job_leases` deletes: one replica at a time, and another takes over when the holder stops renewing
 * it. Expired keys are never replayed whether or not they are deleted yet (the claim ignores them);
 * the cleanup only bounds the table.
 */
@Injectable()
export class IdempotencyCleanupService
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(IdempotencyCleanupService.name);
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private held = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: IdempotencyRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => (this.ticking = undefined));
    }, this.config.idempotency.cleanupIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    if (this.held) await this.keys.dropJobLease(CLEANUP_JOB, this.holder).catch(() => undefined);
  }

  /** One tick: takes or renews the lease, then deletes expired keys in bounded batches. */
  async tick(): Promise<void> {
    try {
      const leaseMs = 2 * this.config.idempotency.cleanupIntervalMs + LEASE_SLACK_MS;
      this.held = await this.keys.takeJobLease(CLEANUP_JOB, this.holder, leaseMs);
      if (!this.held) return;
      let deleted = 0;
      for (let batch = 0; batch < CLEANUP_MAX_BATCHES; batch++) {
        const n = await this.keys.deleteExpired(CLEANUP_BATCH);
        deleted += n;
        if (n < CLEANUP_BATCH) break;
      }
      if (deleted > 0) this.logger.debug(`deleted ${deleted} expired Idempotency-Key(s)`);
    } catch (err) {
      this.logger.warn(
        { err },
        'deleting expired Idempotency-Keys failed; the next tick tries again',
      );
    }
  }
}
