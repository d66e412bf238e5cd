import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../common/database';
import { advanceRuns, OutcomeBatcher, type AdvanceItem } from './outcome-batcher';
import { enqueueWebhookEvent, webhookBody } from './outbox';
import type { BufferedWork, ClaimedStep, OutcomePlan, StepTransaction } from './outcome-plan';
import * as SQL from './queue.sql';
import { insertEvents, type NewRunEvent } from './run-events';
import { beforeTerminalEvent, dropBufferedSignals, takeBufferedSignal } from './run-signals';

/** What recording an outcome comes back with: the run's next step when the worker continues it. */
export interface WriteResult {
  /** False when the step or its run was no longer the worker's: nothing was recorded. */
  recorded: boolean;
  next: ClaimedStep | null;
}

/**
 * The one writer of step outcomes, for one worker (its id and lease). Applies an `OutcomePlan` only
 * while the step and its run are still the worker's: a worker whose lease was taken over, or whose run
 * was cancelled, records nothing. The common case, a completed step that writes nothing else, goes
 * through the group commit (`OutcomeBatcher`: one statement for many runs); everything else, and any
 * outcome the batch found no longer owned, in one transaction that locks the run first (the order of
 * every transition, so that the API's and the executor's writes never deadlock).
 */
export class OutcomeWriter {
  private readonly logger = new Logger(OutcomeWriter.name);
  private readonly batcher: OutcomeBatcher;

  constructor(
    private readonly pool: Pool,
    private readonly workerId: string,
    private readonly leaseMs: number,
    private readonly announce: () => boolean = () => true,
  ) {
    this.batcher = new OutcomeBatcher(pool, workerId, leaseMs, announce);
  }

  async write(
    claimed: ClaimedStep,
    plan: OutcomePlan,
    buffered: BufferedWork,
  ): Promise<WriteResult> {
    if (plan.step.status === 'COMPLETED' && !plan.effects && buffered.writes.length === 0) {
      const done = await this.writeBatched(claimed, plan, plan.step.output, buffered);
      if (done) return done;
    }
    return withTransaction(this.pool, (client) =>
      this.writeInTransaction(client, claimed, plan, buffered),
    );
  }

  /** Null, having written nothing, when the step or its run is no longer ours. */
  private async writeBatched(
    claimed: ClaimedStep,
    plan: OutcomePlan,
    output: Record<string, unknown>,
    buffered: BufferedWork,
  ): Promise<WriteResult | null> {
    const events = [...stepEvents(claimed, buffered), ...plan.events];
    const { run, next } = plan;
    if (run.status === 'RUNNING' && next) {
      const item = this.advanceItem(claimed, plan, output, events);
      const advanced = await this.batcher.advance(item);
      return advanced.owned
        ? { recorded: true, next: this.nextStep(claimed, plan, advanced.startedAt) }
        : null;
    }
    if (run.status !== 'COMPLETED') return null;
    const completed = await this.batcher.complete({
      stepId: claimed.id,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      output: JSON.stringify(output),
      state: JSON.stringify(run.state),
      stepIndex: run.currentIndex,
      stepsExecuted: run.stepsExecuted,
      // Output and completedAt are the database's to fill in (the run's output and finished_at).
      webhookBody: JSON.stringify(
        webhookBody(
          {
            workspaceId: claimed.workspaceId,
            runId: claimed.runId,
            event: 'workflow.completed',
            data: { status: 'COMPLETED', output: null, completedAt: '' },
          },
          new Date().toISOString(),
        ),
      ),
      events,
    });
    return completed ? { recorded: true, next: null } : null;
  }

  private async writeInTransaction(
    client: PoolClient,
    claimed: ClaimedStep,
    plan: OutcomePlan,
    buffered: BufferedWork,
  ): Promise<WriteResult> {
    const run = (
      await client.query<{ status: string; buffered_signals: number }>(SQL.LOCK_RUN, [
        claimed.runId,
      ])
    ).rows[0];
    const owned = (await client.query(SQL.CHECK_OWNERSHIP, [claimed.id, this.workerId])).rowCount;
    if (!run || run.status !== 'RUNNING' || !owned) {
      // Cancelled while in flight, or our lease was taken over: drop the result.
      this.logger.debug(`discarding the outcome of step run ${claimed.id} (no longer ours)`);
      if (owned) await client.query(SQL.CLOSE_ORPHAN_STEP, [claimed.id, this.workerId]);
      return { recorded: false, next: null };
    }
    let events: NewRunEvent[] = stepEvents(claimed, buffered);
    const tx: StepTransaction = {
      client,
      workspaceId: claimed.workspaceId,
      runId: claimed.runId,
      stepRunId: claimed.id,
      event: (type, payload = {}) =>
        events.push({ ...base(claimed), stepRunId: claimed.id, type, payload }),
    };
    for (const write of buffered.writes) await write(tx);
    if (plan.effects) await plan.effects(tx);
    events.push(...plan.events);

    const { step, next, run: change } = plan;
    if (step.status === 'COMPLETED' && next && change.status === 'RUNNING') {
      const started = await advanceRuns(
        client,
        this.workerId,
        this.leaseMs,
        [this.advanceItem(claimed, plan, step.output, events)],
        this.announce(),
      );
      return {
        recorded: true,
        next: this.nextStep(claimed, plan, started.get(claimed.runId) ?? null),
      };
    }
    // The run's status as written: a step that takes a buffered signal instead of parking keeps it
    // RUNNING (woken at once, as a resume would).
    let runStatus = change.status;
    switch (step.status) {
      case 'COMPLETED':
        await client.query(SQL.COMPLETE_STEP, [claimed.id, JSON.stringify(step.output)]);
        break;
      case 'WAITING': {
        // The count comes from the locked run row: a signal buffered before the lock was granted
        // counts, and any later one finds the step parked and is delivered to it.
        const taken =
          step.takeBufferedSignal && run.buffered_signals > 0
            ? await takeBufferedSignal(
                client,
                { ...base(claimed), id: claimed.id, stepName: claimed.stepName },
                step.takeBufferedSignal,
              )
            : null;
        if (taken) {
          events.push(taken);
          runStatus = 'RUNNING';
        } else {
          await client.query(SQL.PARK_STEP, [claimed.id, step.dueAt]);
        }
        break;
      }
      case 'PENDING':
        await client.query(SQL.RETRY_STEP, [claimed.id, step.attempt, step.delayMs, step.error]);
        if (step.delayMs === 0) await client.query(SQL.NOTIFY_STEP_READY);
        break;
      case 'FAILED':
        await client.query(SQL.FAIL_STEP, [claimed.id, step.error]);
        break;
    }
    let startedAt: Date | null = null;
    if (next) {
      const inserted = await client.query<{ started_at: Date | null }>(SQL.INSERT_STEP, [
        next.id,
        claimed.runId,
        claimed.workspaceId,
        next.index,
        next.name,
        next.type,
        next.claimHere ? 'RUNNING' : 'PENDING',
        next.claimHere ? this.workerId : null,
        this.leaseMs,
      ]);
      startedAt = inserted.rows[0].started_at;
      if (!next.claimHere) await client.query(SQL.NOTIFY_STEP_READY);
    }
    const position = [
      claimed.runId,
      JSON.stringify(change.state),
      change.currentIndex,
      change.stepsExecuted,
      runStatus,
    ];
    if (change.status === 'COMPLETED' || change.status === 'FAILED') {
      const finished = await client.query<{ finished_at: Date; waits_parent: boolean }>(
        SQL.FINISH_RUN,
        [
        ...position,
        change.status === 'COMPLETED' ? JSON.stringify(change.output) : null,
          change.status === 'FAILED' ? change.error : null,
        ],
      );
      // A child run's end wakes the parent's `workflow` step, in the same transaction.
      if (finished.rows[0].waits_parent) await client.query(SQL.WAKE_PARENTS, [[claimed.runId]]);
      // Signals still buffered end with the run, recorded just before its terminal event.
      if (run.buffered_signals > 0) {
        const dropped = await dropBufferedSignals(client, claimed.runId, claimed.workspaceId);
        if (dropped) events = beforeTerminalEvent(events, dropped);
      }
      const at = finished.rows[0].finished_at.toISOString();
      await enqueueWebhookEvent(
        client,
        change.status === 'COMPLETED'
          ? {
              ...base(claimed),
              event: 'workflow.completed',
              data: { status: 'COMPLETED', output: change.output, completedAt: at },
            }
          : {
              ...base(claimed),
              event: 'workflow.failed',
              data: {
                status: 'FAILED',
                error: change.error,
                failedStep: change.failedStep,
                failedAt: at,
              },
            },
      );
    } else {
      await client.query(SQL.UPDATE_RUN_PROGRESS, position);
    }
    await insertEvents(client, events);
    return { recorded: true, next: next ? this.nextStep(claimed, plan, startedAt) : null };
  }

  /** The ADVANCE_RUNS row of a completed step whose run goes on to `plan.next`. */
  private advanceItem(
    claimed: ClaimedStep,
    plan: OutcomePlan,
    output: Record<string, unknown>,
    events: NewRunEvent[],
  ): AdvanceItem {
    const next = plan.next!;
    return {
      stepId: claimed.id,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      output: JSON.stringify(output),
      nextId: next.id,
      nextIndex: next.index,
      nextName: next.name,
      nextType: next.type,
      nextStatus: next.claimHere ? 'RUNNING' : 'PENDING',
      state: JSON.stringify(plan.run.state),
      stepsExecuted: plan.run.stepsExecuted,
      events,
    };
  }

  /** The step this worker continues with, or null when the next step was queued instead. */
  private nextStep(
    claimed: ClaimedStep,
    plan: OutcomePlan,
    startedAt: Date | null,
  ): ClaimedStep | null {
    const next = plan.next;
    if (!next?.claimHere) return null;
    return {
      id: next.id,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      stepIndex: next.index,
      stepName: next.name,
      stepType: next.type,
      attempt: 1,
      wake: null,
      signal: null,
      startedAt: startedAt ?? new Date(),
      claimDelaySeconds: null,
      run: { ...claimed.run, state: plan.run.state, stepsExecuted: plan.run.stepsExecuted },
    };
  }
}

function base(claimed: ClaimedStep): { runId: string; workspaceId: string } {
  return { runId: claimed.runId, workspaceId: claimed.workspaceId };
}

/** The events the step emitted while it executed, first among its outcome's. */
function stepEvents(claimed: ClaimedStep, buffered: BufferedWork): NewRunEvent[] {
  return buffered.events.map((e) => ({
    ...base(claimed),
    stepRunId: claimed.id,
    type: e.type,
    payload: e.payload,
  }));
}
