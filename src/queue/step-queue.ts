import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../common/database';
import type {
  BufferedWork,
  ClaimedStep,
  DefinitionSettings,
  OutcomePlan,
  ReceivedSignal,
  StepTransaction,
  WakeReason,
} from './outcome-plan';
import { OutcomeWriter, type WriteResult } from './outcome-writer';
import * as SQL from './queue.sql';

export interface WorkerLease {
  /** The worker that holds the leases (`hostname:pid:random`). */
  workerId: string;
  leaseMs: number;
  /** STEP_RECORD_MAX_FAILURES: executions in a row whose outcome could not be recorded. */
  recordMaxFailures: number;
  /** Whether claims and outcomes announce their events to live streams (RunEventAnnouncer). */
  announce?: () => boolean;
}

interface ClaimRow {
  id: string;
  run_id: string;
  workspace_id: string;
  step_index: number;
  step_name: string;
  step_type: string;
  attempt: number;
  wake_reason: WakeReason;
  signal: ReceivedSignal | null;
  started_at: Date;
  definition_id: string;
  state: Record<string, unknown>;
  steps_executed: number;
  run_created_at: Date;
  /** Seconds from the step becoming due to this claim (CLAIM_STEPS only). */
  claim_delay?: number;
  /** CLAIM_STEPS only. */
  traceparent?: string | null;
}

/** A definition as the executor keeps it. */
export interface StoredDefinition<S> {
  name: string;
  steps: S[];
  settings: DefinitionSettings;
}

/** A step whose outcome could not be recorded too many times, with the count and the last cause. */
export interface UnrecordedStep extends ClaimedStep {
  recordFailures: number;
  recordError: string | null;
}

function claimedStep(r: ClaimRow): ClaimedStep {
  return {
    id: r.id,
    runId: r.run_id,
    workspaceId: r.workspace_id,
    stepIndex: r.step_index,
    stepName: r.step_name,
    stepType: r.step_type,
    attempt: r.attempt,
    wake: r.wake_reason,
    signal: r.signal,
    startedAt: r.started_at,
    claimDelaySeconds: r.claim_delay ?? null,
    run: {
      id: r.run_id,
      workspaceId: r.workspace_id,
      definitionId: r.definition_id,
      state: r.state,
      stepsExecuted: r.steps_executed,
      createdAt: r.run_created_at,
      traceparent: r.traceparent,
    },
  };
}

/**
 * The step-run queue as one worker sees it: claims, leases, hand-backs and the recording of outcomes,
 * each a statement of queue.sql.ts. The worker's id, lease and limits are fields, fixed for its life.
 */
export class StepQueue {
  private readonly writer: OutcomeWriter;

  constructor(
    private readonly pool: Pool,
    private readonly lease: WorkerLease,
  ) {
    this.writer = new OutcomeWriter(pool, lease.workerId, lease.leaseMs, lease.announce);
  }

  /**
   * Claims up to `limit` due steps, taking turns across workspaces (CLAIM_STEPS): `held` counts the
   * slots each workspace holds in this process, `workspaceMax` caps them.
   */
  async claim(
    limit: number,
    held: Map<string, number>,
    workspaceMax: number,
  ): Promise<ClaimedStep[]> {
    const { rows } = await this.pool.query<ClaimRow>({
      name: 'executor_claim',
      text: SQL.CLAIM_STEPS,
      values: [
        this.lease.workerId,
        limit,
        this.lease.leaseMs,
        [...held.keys()],
        [...held.values()],
        workspaceMax,
        this.lease.announce?.() ?? true,
      ],
    });
    return rows.map(claimedStep);
  }

  /** The workspaces that have due steps (DUE_WORKSPACES). */
  async dueWorkspaces(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ workspace_id: string }>({
      name: 'executor_due_workspaces',
      text: SQL.DUE_WORKSPACES,
    });
    return new Set(rows.map((r) => r.workspace_id));
  }

  /** Applies a planned outcome while the step is still this worker's (see OutcomeWriter). */
  record(claimed: ClaimedStep, plan: OutcomePlan, buffered: BufferedWork): Promise<WriteResult> {
    return this.writer.write(claimed, plan, buffered);
  }

  /** Returns steps whose worker died to the queue; counts one unrecorded execution each. */
  async reapExpiredLeases(): Promise<number> {
    const res = await this.pool.query(SQL.REAP_EXPIRED_LEASES, [this.lease.recordMaxFailures]);
    return res.rowCount ?? 0;
  }

  /** Keeps the leases of in-flight steps alive. */
  async extendLeases(stepIds: string[]): Promise<void> {
    await this.pool.query(SQL.EXTEND_LEASES, [this.lease.workerId, stepIds, this.lease.leaseMs]);
  }

  /**
   * Hands back a step whose outcome could not be recorded (RELEASE_STEP), counting the failure unless
   * `counted` is false, and keeping `cause`. With `writes`, the step's registered writes (billed calls)
   * are kept in the same transaction, even when the step is no longer ours. Returns the new count, or
   * undefined when the step was not this worker's any more.
   */
  async release(
    claimed: ClaimedStep,
    cause: string | null,
    counted: boolean,
    writes: BufferedWork['writes'] = [],
  ): Promise<number | undefined> {
    const release = async (client: Pool | PoolClient) =>
      (
        await client.query<{ record_failures: number }>(SQL.RELEASE_STEP, [
          claimed.id,
          this.lease.workerId,
          cause,
          this.lease.recordMaxFailures,
          counted ? 1 : 0,
        ])
      ).rows[0]?.record_failures;
    if (writes.length === 0) return release(this.pool);
    return withTransaction(this.pool, async (client) => {
      // The run first, as every transition locks it (cost rows lock it too, by their foreign key).
      await client.query(SQL.LOCK_RUN, [claimed.runId]);
      const failures = await release(client);
      const tx: StepTransaction = {
        client,
        workspaceId: claimed.workspaceId,
        runId: claimed.runId,
        stepRunId: claimed.id,
        // Events belong to the outcome, which is not recorded; the writes are records of work done.
        event: () => undefined,
      };
      for (const write of writes) await write(tx);
      return failures;
    });
  }

  /** On shutdown: hands this worker's unfinished steps back at once. Returns how many. */
  async releaseAll(): Promise<number> {
    const res = await this.pool.query(SQL.RELEASE_WORKER_STEPS, [
      this.lease.workerId,
      this.lease.recordMaxFailures,
    ]);
    return res.rowCount ?? 0;
  }

  /** Takes up to `limit` steps whose failure to record is to be recorded (CLAIM_UNRECORDED_STEPS). */
  async claimUnrecorded(limit: number): Promise<UnrecordedStep[]> {
    const { rows } = await this.pool.query<
      ClaimRow & { record_failures: number; record_error: string | null }
    >(SQL.CLAIM_UNRECORDED_STEPS, [this.lease.workerId, limit, this.lease.leaseMs]);
    return rows.map((r) => ({
      ...claimedStep(r),
      recordFailures: r.record_failures,
      recordError: r.record_error,
    }));
  }

  /** A definition's name, steps and run-level settings, as stored. */
  async definition<S>(definitionId: string): Promise<StoredDefinition<S>> {
    const res = await this.pool.query<{
      name: string;
      steps: S[];
      max_cost_usd: string | null;
      on_budget_exceeded: 'fail' | 'approval' | null;
    }>(SQL.LOAD_DEFINITION_STEPS, [definitionId]);
    const row = res.rows[0];
    return {
      name: row.name,
      steps: row.steps,
      settings: { maxCostUsd: row.max_cost_usd, onBudgetExceeded: row.on_budget_exceeded },
    };
  }
}
