import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Database } from '../common/database';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Metrics } from './metrics';

/** A read of the gauges longer than this is abandoned; the gauges keep their last values. */
const READ_TIMEOUT_MS = 5_000;

/**
 * Due steps that no executor has claimed, per workspace, with the age of the oldest: read through
 * the partial index over queued steps (step_runs_due_idx).
 */
const DUE_STEPS = `
  SELECT workspace_id, count(*)::int AS count,
         EXTRACT(EPOCH FROM now() - min(due_at))::float8 AS oldest
  FROM step_runs
  WHERE status IN ('PENDING', 'WAITING') AND due_at IS NOT NULL AND due_at <= now()
  GROUP BY workspace_id`;

/** Approval requests awaiting a decision, per workspace (approval_requests_pending_idx). */
const PENDING_APPROVALS = `
  SELECT workspace_id, count(*)::int AS count
  FROM approval_requests WHERE decision IS NULL
  GROUP BY workspace_id`;

/**
 * Reads the gauges that only the database knows (the backlog and its age, pending approvals) every
 * METRICS_DATABASE_REFRESH_MS, in every process: the backlog is right even when no executor runs,
 * which is when it matters for autoscaling. A scrape never waits on the database; a failed read
 * leaves the last values, and `orchestrator_database_gauges_refreshed_timestamp_seconds` says how
 * old they are.
 */
@Injectable()
export class DatabaseGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.metrics.enabled) return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.config.metrics.databaseRefreshMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.reading;
  }

  /** One read of every database-backed gauge; a read still running is not started twice. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    try {
      const [due, approvals] = await this.db.transaction(async (client) => {
        await client.query(`SET LOCAL statement_timeout = ${READ_TIMEOUT_MS}`);
        return [
          await client.query<{ workspace_id: string; count: number; oldest: number }>(DUE_STEPS),
          await client.query<{ workspace_id: string; count: number }>(PENDING_APPROVALS),
        ];
      });
      this.metrics.databaseRead({
        dueSteps: due.rows.map((r) => ({
          workspaceId: r.workspace_id,
          count: r.count,
          oldestAgeSeconds: Math.max(0, r.oldest),
        })),
        pendingApprovals: approvals.rows.map((r) => ({
          workspaceId: r.workspace_id,
          count: r.count,
        })),
      });
      if (this.failing) this.logger.log('reading the database-backed gauges works again');
      this.failing = false;
    } catch (err) {
      // Once per outage, not at every refresh.
      if (!this.failing) {
        this.logger.warn(
          { err },
          'reading the database-backed gauges failed; they keep their last values',
        );
      }
      this.failing = true;
    }
  }
}
