import { Injectable, Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../common/database';
import { timeOrderedUuid } from '../common/ids';
import {
  outputKeyOf,
  retryDelayMs,
  retryPolicyOf,
  type StepDefinition,
} from '../steps/step-definition';
import { insertEvents, type NewRunEvent } from '../queue/run-events';
import { enqueueWebhookEvent } from '../queue/outbox';
import * as SQL from './executor.sql';
import { advanceRuns, type AdvanceItem, type OutcomeBatcher } from './outcome-batcher';
import type { ReceivedSignal, StepOutcome, StepTransaction, WakeReason } from '../steps/step-executor';

/** A run may execute at most this many steps (loops through conditions); past it, it fails. */
export const MAX_STEPS_PER_RUN = 1000;

export interface RunSnapshot {
  id: string;
  workspaceId: string;
  definitionId: string;
  state: Record<string, unknown>;
  stepsExecuted: number;
}

/** A step run this worker holds the lease on, with what it needs to execute. */
export interface ClaimedStep {
  id: string;
  runId: string;
  workspaceId: string;
  stepIndex: number;
  stepName: string;
  stepType: string;
  attempt: number;
  wake: WakeReason;
  signal: ReceivedSignal | null;
  startedAt: Date;
  run: RunSnapshot;
}

/** What the worker does after recording: continue with `next`, and/or look for work at `wakeAt`. */
export interface RecordResult {
  next: ClaimedStep | null;
  /** A timer this outcome set (wait, signal timeout, retry back-off); polling would find it too. */
  wakeAt: Date | null;
}

export interface BufferedWork {
  events: Array<Omit<NewRunEvent, 'runId' | 'workspaceId' | 'stepRunId'>>;
  writes: Array<(tx: StepTransaction) => Promise<void>>;
}

interface RunRow {
  id: string;
  workspace_id: string;
  definition_id: string;
  status: string;
  state: Record<string, unknown>;
  steps_executed: number;
}

/** The payload of STEP_COMPLETED: the step's name and how long it ran since it started. */
function stepCompleted(claimed: ClaimedStep): Record<string, unknown> {
  return {
    stepName: claimed.stepName,
    durationMs: Math.max(0, Date.now() - claimed.startedAt.getTime()),
  };
}

/** STEP_STARTED of a step's first attempt, recorded when this worker takes the step itself. */
function stepStarted(
  runId: string,
  workspaceId: string,
  stepRunId: string,
  step: StepDefinition,
): NewRunEvent {
  return {
    runId,
    workspaceId,
    stepRunId,
    type: 'STEP_STARTED',
    payload: { stepName: step.name, stepType: step.type, attempt: 1 },
  };
}

/**
 * Records a step's outcome and advances its run, all in one transaction: the step row, the run row,
 * the run events, any webhook outbox rows and the step's own writes commit together or not at all.
 */
@Injectable()
export class RunEngine {
  private readonly logger = new Logger(RunEngine.name);

  /**
   * Applies the outcome. Returns the run's next step when this worker should continue it at once
   * (already claimed under `workerId`), and the due time of any timer the outcome set.
   */
  async record(
    pool: Pool,
    workerId: string,
    leaseMs: number,
    batcher: OutcomeBatcher,
    claimed: ClaimedStep,
    steps: readonly StepDefinition[],
    outcome: StepOutcome,
    buffered: BufferedWork,
    continueInWorker: boolean,
  ): Promise<RecordResult> {
    if (outcome.kind === 'complete' && !outcome.effects && buffered.writes.length === 0) {
      const done = await this.completeAtOnce(
        batcher,
        claimed,
        steps,
        outcome,
        buffered,
        continueInWorker,
      );
      if (done) return done;
    }
    return withTransaction(pool, async (client) => {
      const run = (await client.query<RunRow>(SQL.LOCK_RUN, [claimed.runId])).rows[0];
      const owned = (await client.query(SQL.CHECK_OWNERSHIP, [claimed.id, workerId])).rowCount;
      if (!run || run.status !== 'RUNNING' || !owned) {
        // Cancelled while in flight, or our lease was taken over: drop the result.
        this.logger.debug(`discarding the outcome of step run ${claimed.id} (no longer ours)`);
        if (owned) await client.query(SQL.CLOSE_ORPHAN_STEP, [claimed.id, workerId]);
        return { next: null, wakeAt: null };
      }
      const step = steps[claimed.stepIndex];
      const events: NewRunEvent[] = [];
      const base = { runId: run.id, workspaceId: run.workspace_id };
      const event = (
        type: NewRunEvent['type'],
        payload: Record<string, unknown> = {},
        stepRunId: string | null = claimed.id,
      ) => events.push({ ...base, stepRunId, type, payload });
      for (const e of buffered.events) event(e.type, e.payload);
      const tx: StepTransaction = {
        client,
        workspaceId: run.workspace_id,
        runId: run.id,
        stepRunId: claimed.id,
        event: (type, payload) => event(type, payload),
      };
      for (const write of buffered.writes) await write(tx);
      if (outcome.effects) await outcome.effects(tx);

      let next: ClaimedStep | null = null;
      let wakeAt: Date | null = null;
      let state = run.state;
      let status = 'RUNNING';
      let stepsExecuted = run.steps_executed;
      let currentIndex = claimed.stepIndex;
      let terminal: { output: unknown; error: string | null } | null = null;

      switch (outcome.kind) {
        case 'complete': {
          event('STEP_COMPLETED', stepCompleted(claimed));
          state = { ...state, ...(outcome.statePatch ?? {}), [outputKeyOf(step)]: outcome.output };
          stepsExecuted += 1;
          const nextIndex = outcome.next ?? claimed.stepIndex + 1;
          if (nextIndex < steps.length && stepsExecuted < MAX_STEPS_PER_RUN) {
            const item = this.advanceItem(claimed, steps, outcome.output, {
              index: nextIndex,
              claimHere: continueInWorker,
              state,
              stepsExecuted,
              events,
            });
            const started = await advanceRuns(client, workerId, leaseMs, [item]);
            return {
              next: this.nextStep(claimed, item, started.get(run.id) ?? null),
              wakeAt: null,
            };
          }
          await client.query(SQL.COMPLETE_STEP, [claimed.id, JSON.stringify(outcome.output)]);
          if (nextIndex >= steps.length) {
            status = 'COMPLETED';
            terminal = { output: state, error: null };
          } else if (stepsExecuted >= MAX_STEPS_PER_RUN) {
            // The run stops before `nextIndex`; a manual retry continues there, not at a done step.
            currentIndex = nextIndex;
            status = 'FAILED';
            terminal = {
              output: null,
              error: `run exceeded the limit of ${MAX_STEPS_PER_RUN} steps`,
            };
          }
          break;
        }
        case 'wait':
          await client.query(SQL.PARK_STEP, [claimed.id, outcome.dueAt]);
          wakeAt = outcome.dueAt;
          status = 'WAITING';
          break;
        case 'pause':
          await client.query(SQL.PARK_STEP, [claimed.id, null]);
          status = 'PAUSED';
          break;
        case 'fail': {
          event('STEP_FAILED', {
            stepName: claimed.stepName,
            error: outcome.error,
            attempt: claimed.attempt,
          });
          const policy = retryPolicyOf(step);
          state = { ...state, ...(outcome.statePatch ?? {}) };
          if (
            outcome.retryable &&
            outcome.jumpTo === undefined &&
            claimed.attempt < policy.maxAttempts
          ) {
            const attempt = claimed.attempt + 1;
            const delayMs = retryDelayMs(policy, attempt);
            await client.query(SQL.RETRY_STEP, [claimed.id, attempt, delayMs, outcome.error]);
            event('STEP_RETRYING', { stepName: claimed.stepName, attempt, delayMs });
            if (delayMs === 0) await client.query(SQL.NOTIFY_STEP_READY);
            wakeAt = new Date(Date.now() + delayMs);
          } else if (outcome.jumpTo !== undefined) {
            await client.query(SQL.FAIL_STEP, [claimed.id, outcome.error]);
            stepsExecuted += 1;
            currentIndex = outcome.jumpTo;
            next = await this.startStep(
              client,
              workerId,
              leaseMs,
              run,
              outcome.jumpTo,
              steps,
              continueInWorker,
              events,
            );
          } else {
            await client.query(SQL.FAIL_STEP, [claimed.id, outcome.error]);
            status = 'FAILED';
            terminal = { output: null, error: outcome.error };
          }
          break;
        }
      }

      if (terminal) {
        const finished = await client.query<{ finished_at: Date }>(SQL.FINISH_RUN, [
          run.id,
          JSON.stringify(state),
          currentIndex,
          stepsExecuted,
          status,
          terminal.output === null ? null : JSON.stringify(terminal.output),
          terminal.error,
        ]);
        const at = finished.rows[0].finished_at.toISOString();
        if (status === 'COMPLETED') {
          event('WORKFLOW_COMPLETED', {}, null);
          await enqueueWebhookEvent(client, {
            ...base,
            event: 'workflow.completed',
            data: { status, output: terminal.output, completedAt: at },
          });
        } else {
          event('WORKFLOW_FAILED', { error: terminal.error, stepName: claimed.stepName }, null);
          await enqueueWebhookEvent(client, {
            ...base,
            event: 'workflow.failed',
            data: { status, error: terminal.error, failedStep: claimed.stepName, failedAt: at },
          });
        }
      } else {
        await client.query(SQL.UPDATE_RUN_PROGRESS, [
          run.id,
          JSON.stringify(state),
          currentIndex,
          stepsExecuted,
          status,
        ]);
      }
      await insertEvents(client, events);
      if (next) {
        next.run = { ...next.run, state, stepsExecuted };
      }
      return { next, wakeAt };
    });
  }

  /**
   * The common case, a completed step that wrote nothing else, recorded without a transaction block
   * of its own: batched with other workers' outcomes into one ADVANCE_RUNS statement when the run goes
   * on, or one COMPLETE_RUNS statement when it was the last step. The state is the claimed snapshot:
   * nothing else writes a run's state while one of its steps is RUNNING under a lease. Returns null,
   * having written nothing, when the step or its run is no longer ours (or the run hits the step
   * limit): the general path then decides what to record.
   */
  private async completeAtOnce(
    batcher: OutcomeBatcher,
    claimed: ClaimedStep,
    steps: readonly StepDefinition[],
    outcome: Extract<StepOutcome, { kind: 'complete' }>,
    buffered: BufferedWork,
    continueInWorker: boolean,
  ): Promise<RecordResult | null> {
    const step = steps[claimed.stepIndex];
    const state = {
      ...claimed.run.state,
      ...(outcome.statePatch ?? {}),
      [outputKeyOf(step)]: outcome.output,
    };
    const stepsExecuted = claimed.run.stepsExecuted + 1;
    const nextIndex = outcome.next ?? claimed.stepIndex + 1;
    const last = nextIndex >= steps.length;
    if (!last && stepsExecuted >= MAX_STEPS_PER_RUN) return null;
    const base = { runId: claimed.runId, workspaceId: claimed.workspaceId };
    const events: NewRunEvent[] = buffered.events.map((e) => ({
      ...base,
      stepRunId: claimed.id,
      type: e.type,
      payload: e.payload,
    }));
    events.push({
      ...base,
      stepRunId: claimed.id,
      type: 'STEP_COMPLETED',
      payload: stepCompleted(claimed),
    });
    if (!last) {
      const item = this.advanceItem(claimed, steps, outcome.output, {
        index: nextIndex,
        claimHere: continueInWorker,
        state,
        stepsExecuted,
        events,
      });
      const advanced = await batcher.advance(item);
      if (!advanced.owned) return null;
      return { next: this.nextStep(claimed, item, advanced.startedAt), wakeAt: null };
    }
    events.push({ ...base, stepRunId: null, type: 'WORKFLOW_COMPLETED', payload: {} });
    const completed = await batcher.complete({
      stepId: claimed.id,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      output: JSON.stringify(outcome.output),
      state: JSON.stringify(state),
      stepIndex: claimed.stepIndex,
      stepsExecuted,
      events,
    });
    return completed ? { next: null, wakeAt: null } : null;
  }

  /**
   * The writes of a completed step whose run goes on to `go.index`. When this worker continues the
   * run itself, the next step is inserted already claimed and its STEP_STARTED is recorded now.
   */
  private advanceItem(
    claimed: ClaimedStep,
    steps: readonly StepDefinition[],
    output: Record<string, unknown>,
    go: {
      index: number;
      claimHere: boolean;
      state: Record<string, unknown>;
      stepsExecuted: number;
      events: NewRunEvent[];
    },
  ): AdvanceItem & { stateObject: Record<string, unknown> } {
    const step = steps[go.index];
    const nextId = timeOrderedUuid();
    if (go.claimHere) go.events.push(stepStarted(claimed.runId, claimed.workspaceId, nextId, step));
    return {
      stepId: claimed.id,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      output: JSON.stringify(output),
      nextId,
      nextIndex: go.index,
      nextName: step.name,
      nextType: step.type,
      nextStatus: go.claimHere ? 'RUNNING' : 'PENDING',
      state: JSON.stringify(go.state),
      stateObject: go.state,
      stepsExecuted: go.stepsExecuted,
      events: go.events,
    };
  }

  /** The step this worker continues with after an advance, or null when it was queued instead. */
  private nextStep(
    claimed: ClaimedStep,
    item: AdvanceItem & { stateObject: Record<string, unknown> },
    startedAt: Date | null,
  ): ClaimedStep | null {
    if (item.nextStatus !== 'RUNNING') return null;
    return {
      id: item.nextId,
      runId: claimed.runId,
      workspaceId: claimed.workspaceId,
      stepIndex: item.nextIndex,
      stepName: item.nextName,
      stepType: item.nextType,
      attempt: 1,
      wake: null,
      signal: null,
      startedAt: startedAt ?? new Date(),
      run: { ...claimed.run, state: item.stateObject, stepsExecuted: item.stepsExecuted },
    };
  }

  /**
   * Creates the step run for `index`: claimed by this worker (STEP_STARTED recorded now) when it will
   * continue the run itself, otherwise PENDING and announced with NOTIFY.
   */
  private async startStep(
    client: PoolClient,
    workerId: string,
    leaseMs: number,
    run: RunRow,
    index: number,
    steps: readonly StepDefinition[],
    claimHere: boolean,
    events: NewRunEvent[],
  ): Promise<ClaimedStep | null> {
    const step = steps[index];
    const inserted = await client.query<{ id: string; started_at: Date | null }>(SQL.INSERT_STEP, [
      run.id,
      run.workspace_id,
      index,
      step.name,
      step.type,
      claimHere ? 'RUNNING' : 'PENDING',
      claimHere ? workerId : null,
      leaseMs,
    ]);
    const row = inserted.rows[0];
    if (!claimHere) {
      await client.query(SQL.NOTIFY_STEP_READY);
      return null;
    }
    events.push(stepStarted(run.id, run.workspace_id, row.id, step));
    return {
      id: row.id,
      runId: run.id,
      workspaceId: run.workspace_id,
      stepIndex: index,
      stepName: step.name,
      stepType: step.type,
      attempt: 1,
      wake: null,
      signal: null,
      startedAt: row.started_at ?? new Date(),
      run: {
        id: run.id,
        workspaceId: run.workspace_id,
        definitionId: run.definition_id,
        state: run.state,
        stepsExecuted: run.steps_executed,
      },
    };
  }
}
