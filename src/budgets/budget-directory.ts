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
 * The set the directory keeps, as a state machine without I/O (unit-tested in
 * budget-directory.spec.ts). Notifications are `set:<workspace id>` and `clear:<workspace id>`, in
 * commit order; those that arrive while a load is under way are held and applied after it, newest
 * last, so that neither the load's snapshot nor a change committed after it is lost. Until a load
 * has finished since the connection was last lost, every workspace may have a budget.
 */
export class BudgetedWorkspaces {
  private budgeted = new Set<string>();
  private ready = false;
  private held: string[] | undefined;
  private generation = 0;

  /** A load starts; the token it finishes (or fails) with. */
  beginLoad(): number {
    this.held = [];
    return ++this.generation;
  }

  /** The load of `token` read `ids`; ignored when a later load started or the connection was lost. */
  finishLoad(token: number, ids: readonly string[]): void {
    if (token !== this.generation) return;
    this.budgeted = new Set(ids);
    for (const payload of this.held ?? []) this.apply(payload);
    this.held = undefined;
    this.ready = true;
  }

  failLoad(token: number): void {
    if (token !== this.generation) return;
    this.held = undefined;
    this.ready = false;
  }

  /** The LISTEN connection dropped: notifications may be missed until the next load. */
  lost(): void {
    this.generation++;
    this.held = undefined;
    this.ready = false;
  }

  notify(payload: string): void {
    if (this.held) this.held.push(payload);
    else this.apply(payload);
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** False only when the workspace is known to have no budget. */
  mayHaveBudget(workspaceId: string): boolean {
    return !this.ready || this.budgeted.has(workspaceId);
  }

  private apply(payload: string): void {
    const [action, workspaceId] = payload.split(':');
    if (!workspaceId) return;
    if (action === 'set') this.budgeted.add(workspaceId);
    else if (action === 'clear') this.budgeted.delete(workspaceId);
  }
}

/**
 * Which workspaces have a monthly budget, kept in the memory of every process that executes steps, so
 * that an LLM call of a workspace without one (most of them) costs no database round trip and no lock
 * (README "Budgets").
 *
 * Loaded at start-up after LISTEN on BUDGET_CHANGED_CHANNEL is in place, then kept by the
 * notifications that PUT /v1/workspaces/current/budget sends in its transaction (BudgetedWorkspaces).
 * While the LISTEN connection is down, and until the load after it is back, every workspace counts
 * as one that may have a budget: the LLM step then asks the database, which is always right.
 */
@Injectable()
export class BudgetDirectory implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BudgetDirectory.name);
  private readonly set = new BudgetedWorkspaces();
  private listener?: PgListener;
  /** Whether the LISTEN connection is up: a failed load is retried only then. */
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
      onNotify: (_channel, payload) => {
        if (payload) this.set.notify(payload);
      },
      onReconnect: () => {
        this.listening = true;
        void this.load();
      },
      onLost: () => {
        this.listening = false;
        this.set.lost();
      },
      logger: this.logger,
      label: 'budget directory',
    });
    try {
      await this.listener.start();
    } catch (err) {
      // Not ready: every workspace takes the database path.
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
      if (this.listening && !this.set.isReady) void this.load();
    }, RETRY_LOAD_MS);
    this.retry.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.retry) clearInterval(this.retry);
    await this.listener?.stop();
  }

  /** False only when the workspace is known to have no budget. */
  mayHaveBudget(workspaceId: string): boolean {
    return this.set.mayHaveBudget(workspaceId);
  }

  private async load(): Promise<void> {
    const token = this.set.beginLoad();
    try {
      this.set.finishLoad(token, await this.budgets.workspacesWithBudget());
    } catch (err) {
      this.set.failLoad(token);
      this.logger.warn(
        { err },
        'loading the workspaces with a budget failed; checking in the database',
      );
    }
  }
}
