import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { PgListener } from '../common/pg-listener';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { BUDGET_CHANGED_CHANNEL, BudgetsRepository } from './budgets.repository';

/** How often a failed load is tried again. */
const RETRY_LOAD_MS = 5000;

/**
 * Which workspaces have a monthly budget, kept in the memory of every process that executes steps, so
 * that an LLM call of a workspace without one (most of them) costs no database round trip and no lock
 * (README "Budgets").
 *
 * Loaded at start-up after LISTEN on BUDGET_CHANGED_CHANNEL is in place, then kept by the
 * notifications that PUT /v1/workspaces/current/budget sends in its transaction, applied in commit
 * order (those that arrive during a load are applied after it, so none is lost and the newest wins).
 * While the LISTEN connection is down, and until the load after it is back, every workspace counts
 * as one that may have a budget: the LLM step then asks the database, which is always right.
 */
@Injectable()
export class BudgetDirectory implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BudgetDirectory.name);
  private listener?: PgListener;
  private budgeted = new Set<string>();
  private ready = false;
  /** Notifications received while a load is under way, applied after it. */
  private pending: string[] | undefined;
  private loads = 0;
  /** Whether the LISTEN connection is up: loads only count then. */
  private listening = false;
  private retry?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly budgets: BudgetsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Only processes that execute steps make LLM calls.
    if (!this.config.executor.enabled || !this.config.databaseUrl) return;
    this.listener = new PgListener({
      url: this.config.databaseUrl,
      channels: [BUDGET_CHANGED_CHANNEL],
      onNotify: (_channel, payload) => this.onNotify(payload),
      onReconnect: () => {
        this.listening = true;
        void this.load();
      },
      onLost: () => {
        this.listening = false;
        this.ready = false;
        this.loads++; // a load under way no longer counts
      },
      logger: this.logger,
      label: 'budget directory',
    });
    try {
      await this.listener.start();
    } catch (err) {
      // Not ready: every workspace takes the database path until a later load succeeds.
      this.logger.warn(
        { err },
        'budget directory could not listen; checking budgets in the database',
      );
      return;
    }
    this.listening = true;
    await this.load();
    // A load that failed (the database away for a moment) is tried again.
    this.retry = setInterval(() => {
      if (this.listening && !this.ready) void this.load();
    }, RETRY_LOAD_MS);
    this.retry.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.retry) clearInterval(this.retry);
    await this.listener?.stop();
  }

  /** False only when the workspace is known to have no budget. */
  mayHaveBudget(workspaceId: string): boolean {
    return !this.ready || this.budgeted.has(workspaceId);
  }

  private onNotify(payload: string | undefined): void {
    if (!payload) return;
    if (this.pending) this.pending.push(payload);
    else this.apply(payload);
  }

  private apply(payload: string): void {
    const [action, workspaceId] = payload.split(':');
    if (!workspaceId) return;
    if (action === 'set') this.budgeted.add(workspaceId);
    else if (action === 'clear') this.budgeted.delete(workspaceId);
  }

  private async load(): Promise<void> {
    const load = ++this.loads;
    this.pending = [];
    try {
      const ids = await this.budgets.workspacesWithBudget();
      if (load !== this.loads || !this.listening) return;
      this.budgeted = new Set(ids);
      for (const payload of this.pending) this.apply(payload);
      this.ready = true;
    } catch (err) {
      if (load === this.loads) this.ready = false;
      this.logger.warn(
        { err },
        'loading the workspaces with a budget failed; checking in the database',
      );
    } finally {
      if (load === this.loads) this.pending = undefined;
    }
  }
}
