import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { PoolClient } from 'pg';
import { CoalescedTask } from '../common/coalesced-task';
import { Database } from '../common/database';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { RunQueue } from '../queue/run-queue';
import { CronSchedule, fireIdempotencyKey, jitterFor } from './cron';
import { planFire, type OverlapPolicy } from './fire-plan';
import { SchedulerClock } from './scheduler-clock';
import * as SQL from './schedules.sql';

const POLL_INTERVAL_NAME = 'scheduler-poll';
/** Compiled expressions kept per process (by expression and zone); a schedule's changes compile anew. */
const CRON_CACHE_SIZE = 1000;

interface ClaimedSchedule {
  id: string;
  workspace_id: string;
  definition_id: string;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  overlap_policy: OverlapPolicy;
  catchup_window_ms: string;
  jitter_ms: number;
  next_fire_at: Date;
  due_at: Date;
  buffered_fire_at: Date | null;
  run_active?: boolean;
}

/** A run created in a claim, reported to the metrics once the claim has committed. */
type Started = { workspaceId: string; workflow: string };

/**
 * Starts the runs of due schedules (README "Schedules"). Every replica with SCHEDULER_ENABLED polls;
 * each claim is one transaction that locks due schedules FOR UPDATE SKIP LOCKED, creates each fire's
 * run through the run queue (idempotency key `schedule:<id>:<fire time>`), and advances the schedules,
 * so a fire starts one run whatever the number of replicas, and a crash before the commit leaves the
 * fire due and its run uncreated. Fire decisions (catch-up, overlap) are `planFire`'s.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SchedulerService.name);
  private readonly filler = new CoalescedTask(() => this.fill());
  private readonly crons = new Map<string, CronSchedule | Error>();
  private running = false;
  private filling?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly queue: RunQueue,
    private readonly clock: SchedulerClock,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.scheduler.enabled) return;
    this.running = true;
    const poll = setInterval(() => this.wake(), this.config.scheduler.pollIntervalMs);
    poll.unref();
    this.scheduler.addInterval(POLL_INTERVAL_NAME, poll);
    this.logger.log(
      `scheduler started: poll ${this.config.scheduler.pollIntervalMs} ms, batch ${this.config.scheduler.batchSize}`,
    );
    this.wake();
  }

  /** Stops claiming and waits for the claim in progress (a transaction: it commits or rolls back). */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.scheduler.doesExist('interval', POLL_INTERVAL_NAME)) {
      this.scheduler.deleteInterval(POLL_INTERVAL_NAME);
    }
    await this.filling;
  }

  /** Looks for due schedules now. */
  wake(): void {
    if (this.running) this.filler.trigger();
  }

  private async fill(): Promise<void> {
    const work = this.claimAll();
    this.filling = work;
    await work;
  }

  /** Claims until nothing is due; a failed claim is logged and the next poll tries again. */
  private async claimAll(): Promise<void> {
    try {
      while (this.running) {
        const { claimed, stillDue } = await this.claimDue();
        if (claimed < this.config.scheduler.batchSize && !stillDue) break;
      }
      while (this.running) {
        if ((await this.claimBuffered()) < this.config.scheduler.batchSize) break;
      }
    } catch (err) {
      this.logger.error({ err }, 'claiming due schedules failed');
    }
  }

  /** One claim of due schedules; `stillDue`: one of them is due again already (a backlog). */
  private async claimDue(): Promise<{ claimed: number; stillDue: boolean }> {
    const now = this.clock.now();
    const started: Started[] = [];
    const delays: number[] = [];
    let skippedTotal = 0;
    const result = await this.db.transaction(async (client) => {
      const rows = (
        await client.query<ClaimedSchedule>(SQL.CLAIM_DUE, [now, this.config.scheduler.batchSize])
      ).rows;
      const ids: string[] = [];
      const nexts: Array<Date | null> = [];
      const dues: Array<Date | null> = [];
      const buffered: Array<Date | null> = [];
      const fired: Array<Date | null> = [];
      const skipped: number[] = [];
      let stillDue = false;
      for (const row of rows) {
        const cron = this.compiled(row);
        if (cron instanceof Error) {
          // Stored expressions were valid when written; a zone the runtime no longer knows stops the
          // schedule rather than failing every claim.
          this.logger.error({ scheduleId: row.id, err: cron }, 'schedule stopped: cron unusable');
          ids.push(row.id);
          nexts.push(null);
          dues.push(null);
          buffered.push(row.buffered_fire_at);
          fired.push(null);
          skipped.push(0);
          continue;
        }
        let runActive = row.run_active === true;
        let bufferedFireAt = row.buffered_fire_at;
        let startedFire: Date | null = null;
        // A remembered fire whose run has ended goes first: it is older than the one due now, which
        // then meets a run going (and is remembered in its place, under buffer_one).
        if (bufferedFireAt && !runActive) {
          const run = await this.start(client, row, bufferedFireAt);
          if (run) started.push(run);
          startedFire = bufferedFireAt;
          bufferedFireAt = null;
          runActive = true;
        }
        const plan = planFire(
          cron,
          {
            nextFireAt: row.next_fire_at,
            dueAt: row.due_at,
            catchupWindowMs: Number(row.catchup_window_ms),
            overlapPolicy: row.overlap_policy,
            bufferedFireAt,
            runActive,
            jitter: (fire) => jitterFor(row.id, fire, row.jitter_ms),
          },
          now,
        );
        if (plan.start) {
          const run = await this.start(client, row, plan.start);
          if (run) started.push(run);
          startedFire = plan.start;
          // The delay of fires on time; a caught-up fire's would measure the outage.
          if (plan.start.getTime() === row.next_fire_at.getTime()) {
            delays.push((now.getTime() - row.due_at.getTime()) / 1000);
          }
        }
        const due =
          plan.next && new Date(plan.next.getTime() + jitterFor(row.id, plan.next, row.jitter_ms));
        if (due && due <= now) stillDue = true;
        ids.push(row.id);
        nexts.push(plan.next);
        dues.push(due);
        buffered.push(plan.buffered);
        fired.push(startedFire);
        skipped.push(plan.skipped);
        skippedTotal += plan.skipped;
      }
      if (ids.length > 0) {
        await client.query(SQL.ADVANCE, [ids, nexts, dues, buffered, fired, skipped]);
      }
      return { claimed: rows.length, stillDue };
    });
    this.reportStarted(started);
    this.metrics.scheduleFired(started.length, skippedTotal, delays);
    if (skippedTotal > 0) {
      this.logger.log(`${skippedTotal} schedule fire(s) skipped (overlap policy or missed)`);
    }
    return result;
  }

  /** One claim of buffered fires whose schedules have no run going any more. */
  private async claimBuffered(): Promise<number> {
    const started: Started[] = [];
    const claimed = await this.db.transaction(async (client) => {
      const rows = (
        await client.query<ClaimedSchedule>(SQL.CLAIM_BUFFERED, [this.config.scheduler.batchSize])
      ).rows;
      for (const row of rows) {
        const run = await this.start(client, row, row.buffered_fire_at!);
        if (run) started.push(run);
      }
      if (rows.length > 0) {
        await client.query(SQL.CLEAR_BUFFERED, [
          rows.map((r) => r.id),
          rows.map((r) => r.buffered_fire_at),
        ]);
      }
      return rows.length;
    });
    this.reportStarted(started);
    this.metrics.scheduleFired(started.length, 0, []);
    return claimed;
  }

  /**
   * Creates a fire's run on the claim's transaction. None when the fire's run exists already (its key
   * is taken: a fire never starts two runs).
   */
  private async start(
    client: PoolClient,
    row: ClaimedSchedule,
    fireAt: Date,
  ): Promise<Started | undefined> {
    const created = await this.queue.createScheduled(client, {
      workspaceId: row.workspace_id,
      definitionId: row.definition_id,
      input: row.input,
      idempotencyKey: fireIdempotencyKey(row.id, fireAt),
      scheduleId: row.id,
    });
    return created && { workspaceId: row.workspace_id, workflow: created.workflow };
  }

  private reportStarted(started: Started[]): void {
    for (const s of started) this.queue.reportStarted(s.workspaceId, s.workflow);
  }

  private compiled(row: ClaimedSchedule): CronSchedule | Error {
    const key = `${row.timezone} ${row.cron}`;
    let cron = this.crons.get(key);
    if (cron === undefined) {
      try {
        cron = CronSchedule.compile(row.cron, row.timezone);
      } catch (err) {
        cron = err instanceof Error ? err : new Error(String(err));
      }
      if (this.crons.size >= CRON_CACHE_SIZE) this.crons.clear();
      this.crons.set(key, cron);
    }
    return cron;
  }
}
