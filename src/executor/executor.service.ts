import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Database } from '../common/database';
import { isDatabaseUnavailable } from '../common/errors';
import { CoalescedTask } from '../common/coalesced-task';
import { sanitizeText } from '../common/json-safety';
import { LeasedPoller } from '../common/leased-poller';
import { timerDelay } from '../common/timers';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import type { StepDefinition } from '../steps/step-definition';
import { StepTypeRegistry } from '../steps/step-type.registry';
import { timeOrderedUuid } from '../common/ids';
import { Metrics, type StepOutcomeLabel } from '../metrics/metrics';
import { RUN_CANCELLED_CHANNEL, STEP_READY_CHANNEL } from '../queue/channels';
import type { BufferedWork, ClaimedStep, OutcomePlan } from '../queue/outcome-plan';
import { RunEventAnnouncer } from '../queue/run-event-announcer';
import { StepQueue, type StoredDefinition } from '../queue/step-queue';
import type { StepOutcome } from '../steps/step-executor';
import { recordStepOutcome, traceStep } from '../tracing/spans';
import { DefinitionCache } from './definition-cache';
import { guardOutcome, MAX_ERROR_CHARS } from './outcome-guard';
import { planOutcome } from './outcome-planner';

const SHUTDOWN_GRACE_MS = 25_000;

/** What the executor keeps of a definition: its name (a metrics label), steps and settings. */
type Definition = StoredDefinition<StepDefinition>;

/** Steps whose failure one sweep records (CLAIM_UNRECORDED_STEPS); the next tick takes any rest. */
const UNRECORDED_BATCH = 20;
const POLL_INTERVAL_NAME = 'executor-poll';
/** Timers further away than this are left to the poll alone. */
const TIMER_HINT_MAX_MS = 5 * 60_000;
/**
 * How often, at most, a process whose slots are all busy asks which workspaces have due steps (a wake
 * with no free slot asks; NOTIFY may wake it once per created run).
 */
const WAITING_PROBE_MIN_INTERVAL_MS = 100;

/**
 * A database fault that says nothing about the outcome being recorded (the database unreachable or
 * restarting, a deadlock or serialisation failure): the step is handed back without counting it
 * towards STEP_RECORD_MAX_FAILURES, which is for outcomes that fail again at every try.
 */
function isPassingDatabaseFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return isDatabaseUnavailable(err) || (typeof code === 'string' && code.startsWith('40'));
}

/**
 * Claims due step runs from Postgres and executes them, EXECUTOR_CONCURRENCY at a time. Work is found
 * by polling (correct on its own) and sooner through LISTEN/NOTIFY. Nothing about a run lives only in
 * this process: a waiting run is a row with a due time, so it holds no memory here.
 */
@Injectable()
export class ExecutorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ExecutorService.name);
  readonly workerId: string;
  private readonly queue: StepQueue;
  /** Whether any process streams run events, so that claims and outcomes announce theirs. */
  private readonly announcer: RunEventAnnouncer;
  private readonly definitions: DefinitionCache<Definition>;
  /** Claims steps into EXECUTOR_CONCURRENCY slots; a run keeps its slot from step to step. */
  private readonly poller: LeasedPoller<ClaimedStep>;
  /** Workspaces last seen with due steps while every slot was busy (see `continuesHere`). */
  private waiting = new Set<string>();
  private waitingAskedAt = 0;
  private waitingAskAgain?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private readonly sweeper = new CoalescedTask(() => this.failUnrecorded());

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    db: Database,
    private readonly stepTypes: StepTypeRegistry,
    scheduler: SchedulerRegistry,
    private readonly metrics: Metrics,
  ) {
    this.poller = new LeasedPoller<ClaimedStep>(this.logger, scheduler, {
      pollName: POLL_INTERVAL_NAME,
      pollIntervalMs: config.executor.pollIntervalMs,
      poll: () => this.tick(),
      capacity: config.executor.concurrency,
      claim: (free) => this.claim(free),
      whenFull: () => this.lookForWaiting(),
      claimFailed: 'claiming steps failed',
      // Each execution is a span of its own, a trace root linked to the run's traceparent.
      run: (step, signal) => traceStep(step, () => this.runStep(step, signal)),
      listen: {
        url: config.databaseUrl!,
        channels: [STEP_READY_CHANNEL, RUN_CANCELLED_CHANNEL],
        onNotify: (channel, payload) => {
          if (channel === STEP_READY_CHANNEL) this.wake();
          else if (channel === RUN_CANCELLED_CHANNEL && payload) this.abortRun(payload);
        },
        label: 'executor',
      },
      graceMs: SHUTDOWN_GRACE_MS,
      abortReason: 'executor shutting down',
      onDraining: (steps) => this.logger.log(`waiting for ${steps} in-flight step(s)`),
      releaseAll: () => this.releaseAll(),
    });
    this.workerId = this.poller.workerId;
    this.announcer = new RunEventAnnouncer(db.pool);
    this.queue = new StepQueue(db.pool, {
      workerId: this.workerId,
      leaseMs: config.executor.leaseMs,
      recordMaxFailures: config.executor.recordMaxFailures,
      announce: () => this.announcer.announce,
    });
    this.definitions = new DefinitionCache<Definition>(config.limits.definitionCacheBytes);
    if (config.executor.enabled) {
      metrics.observeSlots(() => ({
        capacity: config.executor.concurrency,
        inUse: this.poller.items().length,
      }));
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    // Cancellation must reach in-flight steps on every process, even one that only serves the API.
    await this.poller.listen();
    if (!this.config.executor.enabled) {
      this.logger.log('executor disabled (EXECUTOR_ENABLED=false): serving the API only');
      return;
    }
    await this.announcer.start();
    await this.poller.start();
    const every = Math.max(500, Math.floor(this.config.executor.leaseMs / 3));
    this.heartbeat = setInterval(() => void this.extendLeases(), every);
    this.heartbeat.unref();
    this.logger.log(
      `executor ${this.workerId} started: concurrency ${this.config.executor.concurrency}, ` +
        `step types ${this.stepTypes.types().join(', ')}`,
    );
    this.wake();
  }

  /** SIGTERM: stop claiming, let in-flight steps finish (25 s at most), hand the rest back. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.poller.stop();
    this.announcer.stop();
  }

  /** Asks the loop to look for work now. */
  wake(): void {
    this.poller.wake();
  }

  /** After the shutdown's abort: no more lease renewals, and the steps still held go back at once. */
  private async releaseAll(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    const released = await this.queue.releaseAll().catch(() => 0);
    if (released) this.logger.log(`released ${released} unfinished step(s)`);
  }

  private tick(): void {
    this.queue.reapExpiredLeases().then(
      (reaped) => {
        if (reaped) this.logger.warn(`re-queued ${reaped} step(s) whose lease expired`);
        // Also finds steps another process handed back for the last time and could not fail itself.
        this.sweeper.trigger();
        this.wake();
      },
      (err: unknown) => this.logger.error({ err }, 'lease reaper failed'),
    );
  }

  /**
   * One statement: claim due rows, start their runs, record the start events, load run state. The
   * claim takes turns across workspaces, counting the slots each already holds here, and keeps each
   * within its limit (WORKSPACE_MAX_CONCURRENT_STEPS, per process; see CLAIM_STEPS). A workspace that
   * got a slot is no longer waiting; a claim that found less than it asked for leaves none waiting.
   */
  private async claim(limit: number): Promise<ClaimedStep[]> {
    const { executor } = this.config;
    const claimed = await this.queue.claim(
      limit,
      this.heldByWorkspace(),
      executor.workspaceMaxSteps ?? executor.concurrency,
    );
    for (const step of claimed) {
      this.waiting.delete(step.workspaceId);
      if (step.claimDelaySeconds !== null) {
        this.metrics.stepClaimed(step.stepType, step.claimDelaySeconds);
      }
    }
    if (claimed.length < limit) this.waiting.clear();
    return claimed;
  }

  /** Slots of this process held by each workspace. */
  private heldByWorkspace(): Map<string, number> {
    const held = new Map<string, number>();
    for (const { workspaceId } of this.poller.items()) {
      held.set(workspaceId, (held.get(workspaceId) ?? 0) + 1);
    }
    return held;
  }

  /**
   * Every slot is busy and a wake says work may be due: learns which workspaces have due steps, so
   * that `continuesHere` can give a slot back to one of them at the next step boundary.
   */
  private async lookForWaiting(): Promise<void> {
    const now = Date.now();
    const early = this.waitingAskedAt + WAITING_PROBE_MIN_INTERVAL_MS - now;
    if (early > 0) {
      // Asked a moment ago: ask once more when the interval is over, so that this wake is not lost.
      this.waitingAskAgain ??= setTimeout(() => {
        this.waitingAskAgain = undefined;
        this.wake();
      }, early).unref();
      return;
    }
    this.waitingAskedAt = now;
    this.waiting = await this.queue.dueWorkspaces();
  }

  /**
   * Whether this worker goes straight on with a run's next step (saving a claim) or queues it. A run
   * keeps its slot from step to step, so a workspace whose runs are long would keep every slot it
   * took for as long as they last; it gives one back at a step boundary while a workspace holding
   * at least two slots fewer has due steps, and the claim hands the freed slot to the one that holds
   * fewer. Each waiting workspace gets one slot back per look (`lookForWaiting`).
   */
  private continuesHere(workspaceId: string): boolean {
    if (this.waiting.size === 0) return true;
    const held = this.heldByWorkspace();
    const mine = held.get(workspaceId) ?? 0;
    for (const other of this.waiting) {
      if (other !== workspaceId && (held.get(other) ?? 0) + 1 < mine) {
        this.waiting.delete(other);
        return false;
      }
    }
    return true;
  }

  /**
   * Executes one step and records its outcome; returns the run's next step to continue with, if any
   * (it takes this step's slot). When the outcome cannot be recorded, the step is handed back (and
   * counted, see handBack).
   */
  private async runStep(claimed: ClaimedStep, signal: AbortSignal): Promise<ClaimedStep | null> {
    const buffered: BufferedWork = { events: [], writes: [] };
    try {
      return await this.executeAndRecord(claimed, signal, buffered);
    } catch (err) {
      await this.handBack(claimed, err, buffered);
      return null;
    }
  }

  private async executeAndRecord(
    claimed: ClaimedStep,
    signal: AbortSignal,
    buffered: BufferedWork,
  ): Promise<ClaimedStep | null> {
    const definition = await this.definition(claimed.run.definitionId);
    const { steps } = definition;
    const step = steps[claimed.stepIndex];
    const started = performance.now();
    const executor = this.stepTypes.executorFor(step.type);
    let outcome: StepOutcome;
    if (!executor) {
      outcome = {
        kind: 'fail',
        error: `no executor for step type "${step.type}"`,
        retryable: false,
      };
    } else {
      const signals = [signal];
      // external_event uses timeoutMs as its signal deadline, llm as a per-call limit (design §5).
      if (step.timeoutMs !== undefined && !this.stepTypes.get(step.type)?.ownsTimeout) {
        // Clamped for definitions stored before timeoutMs was bounded at creation.
        signals.push(AbortSignal.timeout(timerDelay(step.timeoutMs)));
      }
      const abortSignal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
      try {
        outcome = await this.withTimeout(
          executor.execute({
            workspaceId: claimed.workspaceId,
            runId: claimed.runId,
            stepRunId: claimed.id,
            workerId: this.workerId,
            stepIndex: claimed.stepIndex,
            attempt: claimed.attempt,
            step,
            steps,
            definition: definition.settings,
            state: structuredClone(claimed.run.state),
            wake: claimed.wake,
            signal: claimed.signal,
            abortSignal,
            emit: (type, payload) => buffered.events.push({ type, payload }),
            onCommit: (write) => buffered.writes.push(write),
          }),
          abortSignal,
          step.timeoutMs,
        );
      } catch (err) {
        outcome = {
          kind: 'fail',
          error: err instanceof Error ? err.message : String(err),
          retryable: true,
        };
      }
    }
    outcome = guardOutcome(claimed, step, outcome, buffered, {
      resultMaxBytes: this.config.executor.resultMaxBytes,
      stateMaxBytes: this.config.executor.stateMaxBytes,
    });
    recordStepOutcome(outcome);
    if (signal.aborted && !this.poller.running) {
      // Shutting down: the step is handed back rather than recorded as failed.
      return null;
    }
    const { next, wakeAt } = await this.record(
      claimed,
      definition,
      outcome,
      buffered,
      this.poller.running && this.continuesHere(claimed.workspaceId),
      (performance.now() - started) / 1000,
    );
    if (wakeAt) this.wakeAt(wakeAt);
    return next;
  }

  /**
   * A step whose outcome could not be recorded goes back to the queue after a short pause, its failure
   * counted on its row with the cause. Calls the step made are billed whatever happens next, so the
   * writes it registered (cost records) are kept, in the transaction that hands it back. At the
   * STEP_RECORD_MAX_FAILURES-th failure the step is not executed again: its failure is recorded at
   * once (failUnrecorded). If even the hand-back fails, the lease expires and the reaper counts it.
   */
  private async handBack(
    claimed: ClaimedStep,
    err: unknown,
    buffered: BufferedWork,
  ): Promise<void> {
    this.logger.error({ err, stepRunId: claimed.id }, 'recording a step outcome failed');
    const cause = sanitizeText(err instanceof Error ? err.message : String(err), MAX_ERROR_CHARS);
    const counted = !isPassingDatabaseFault(err);
    let failures: number | undefined;
    if (buffered.writes.length > 0) {
      // Kept even when the step is no longer ours (its run was cancelled): the calls were billed.
      failures = await this.queue
        .release(claimed, cause, counted, buffered.writes)
        .catch((writeErr: unknown) => {
          this.logger.error(
            { err: writeErr, stepRunId: claimed.id },
            'keeping billed calls failed',
          );
          return undefined;
        });
    }
    failures ??= await this.queue.release(claimed, cause, counted).catch(() => undefined);
    if (failures !== undefined && failures >= this.config.executor.recordMaxFailures) {
      this.sweeper.trigger();
    }
  }

  /**
   * Records the failure of steps whose outcome could not be recorded STEP_RECORD_MAX_FAILURES times
   * in a row, without executing them again: the step and its run FAILED with
   * `the step's outcome could not be recorded after N tries: <last cause>`, STEP_FAILED,
   * WORKFLOW_FAILED and workflow.failed, as for any failure. The run engine's failure path writes
   * only texts already made storable, so it succeeds where the outcome did not; if it fails anyway
   * (the database itself is failing), the step is handed back for the next sweep, still unexecuted.
   */
  private async failUnrecorded(): Promise<void> {
    if (!this.poller.running) return;
    const claimed = await this.queue.claimUnrecorded(UNRECORDED_BATCH).catch((err: unknown) => {
      this.logger.error({ err }, 'claiming unrecordable steps failed');
      return [];
    });
    for (const step of claimed) {
      const error = sanitizeText(
        `the step's outcome could not be recorded after ${step.recordFailures} tries: ` +
          (step.recordError ?? 'unknown cause'),
        MAX_ERROR_CHARS,
      );
      try {
        await this.record(
          step,
          await this.definition(step.run.definitionId),
          { kind: 'fail', error, retryable: false },
          { events: [], writes: [] },
          false,
        );
        this.logger.warn({ stepRunId: step.id, runId: step.runId }, error);
      } catch (err) {
        this.logger.error({ err, stepRunId: step.id }, 'recording an unrecordable step failed');
        await this.queue.release(step, step.recordError, true).catch(() => undefined);
      }
    }
    if (claimed.length === UNRECORDED_BATCH) this.sweeper.trigger();
  }

  /**
   * Plans the outcome (the run's state machine, a pure function) and records it through this worker's
   * queue. Returns the run's next step when this worker continues it, and the due time of any timer
   * the recorded outcome set. Once recorded, counts the step's execution (when it executed: `seconds`)
   * and the run's end.
   */
  private async record(
    claimed: ClaimedStep,
    definition: Definition,
    outcome: StepOutcome,
    buffered: BufferedWork,
    continueHere: boolean,
    seconds?: number,
  ): Promise<{ next: ClaimedStep | null; wakeAt: Date | null }> {
    const plan = planOutcome({
      claimed,
      steps: definition.steps,
      outcome,
      continueHere,
      now: Date.now(),
      newId: timeOrderedUuid,
      defaultMaxAttempts: (type) => this.stepTypes.defaultMaxAttempts(type),
    });
    const written = await this.queue.record(claimed, plan, buffered);
    if (!written.recorded) return { next: written.next, wakeAt: null };
    if (seconds !== undefined)
      this.metrics.stepExecuted(claimed.stepType, stepLabel(plan), seconds);
    if (plan.run.status === 'COMPLETED' || plan.run.status === 'FAILED') {
      this.metrics.runFinished(
        claimed.workspaceId,
        definition.name,
        plan.run.status === 'COMPLETED' ? 'completed' : 'failed',
        claimed.run.createdAt,
      );
    }
    return { next: written.next, wakeAt: plan.wakeAt };
  }

  /**
   * Looks for work when a timer this process set comes due, instead of at the next poll. Only a hint:
   * the due time lives in Postgres, and any executor's poll finds it too (after a restart, for one).
   */
  private wakeAt(at: Date): void {
    const delay = at.getTime() - Date.now();
    if (delay > TIMER_HINT_MAX_MS) return;
    setTimeout(() => this.wake(), Math.max(0, delay) + 5).unref();
  }

  /** A step that ignores its AbortSignal still ends at its timeout. */
  private withTimeout(
    work: Promise<StepOutcome>,
    signal: AbortSignal,
    timeoutMs: number | undefined,
  ): Promise<StepOutcome> {
    return new Promise<StepOutcome>((resolve, reject) => {
      const onAbort = () => {
        const reason: unknown = signal.reason;
        const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
        reject(new Error(timedOut ? `step timed out after ${timeoutMs} ms` : 'step aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  private async definition(definitionId: string): Promise<Definition> {
    const cached = this.definitions.get(definitionId);
    if (cached) return cached;
    const definition = await this.queue.definition<StepDefinition>(definitionId);
    this.definitions.set(definitionId, definition);
    return definition;
  }

  private async extendLeases(): Promise<void> {
    const held = this.poller.items().map((step) => step.id);
    if (held.length === 0) return;
    await this.queue
      .extendLeases(held)
      .catch((err: unknown) => this.logger.error({ err }, 'extending leases failed'));
  }

  private abortRun(runId: string): void {
    this.poller.abort((step) => step.runId === runId, 'run cancelled');
  }
}

/** The `outcome` label of a step's recorded execution. */
function stepLabel(plan: OutcomePlan): StepOutcomeLabel {
  switch (plan.step.status) {
    case 'COMPLETED':
      return 'completed';
    case 'WAITING':
      return plan.run.status === 'PAUSED' ? 'paused' : 'waiting';
    case 'PENDING':
      return 'retry';
    case 'FAILED':
      return 'failed';
  }
}
