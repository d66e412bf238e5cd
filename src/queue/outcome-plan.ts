import type { PoolClient } from 'pg';
import type { NewRunEvent, RunEventType } from './run-events';

/** Why a parked step is executing again: its first run (null), its timer came due, or a signal. */
export type WakeReason = null | 'timer' | 'signal';

/**
 * A signal handed to a parked step (a resume, a signal, an approval decision). A resume's payload is
 * an object; a signal's (POST …/signals) may be any JSON value.
 */
export interface ReceivedSignal {
  signalType: string;
  payload: unknown;
  receivedAt: string;
}

/**
 * The buffered signals (POST …/signals) a parking step takes instead of waiting: the oldest of this
 * type, or of any type when `signalType` is null.
 */
export interface BufferedSignalFilter {
  signalType: string | null;
}

/** A definition's run-level settings, read by the steps of its runs (README "Budgets"). */
export interface DefinitionSettings {
  /** The most one run's own LLM calls may cost, an exact decimal; null when not set. */
  maxCostUsd: string | null;
  /** What a call over a budget does when its step does not say; null when not set. */
  onBudgetExceeded: 'fail' | 'approval' | null;
}

/** The run of a claimed step as it was when the step was claimed. */
export interface RunSnapshot {
  id: string;
  workspaceId: string;
  definitionId: string;
  state: Record<string, unknown>;
  stepsExecuted: number;
  createdAt: Date;
  /** The W3C traceparent of the request that created the run, if one was stored. */
  traceparent?: string | null;
}

/** A step run a worker holds the lease on, with what it needs to execute. */
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
  /** Seconds it waited from becoming due to being claimed; null when its worker went straight on. */
  claimDelaySeconds: number | null;
  run: RunSnapshot;
}

/** Writes a step may make in the transaction that records its outcome. */
export interface StepTransaction {
  client: PoolClient;
  workspaceId: string;
  runId: string;
  stepRunId: string;
  event(type: RunEventType, payload?: Record<string, unknown>): void;
}

/** A write made in the transaction that records a step's outcome (an approval request, a cost). */
export type StepWrite = (tx: StepTransaction) => Promise<void>;

/** What a step produced while it executed, written with its outcome: events, then writes. */
export interface BufferedWork {
  events: Array<{ type: RunEventType; payload?: Record<string, unknown> }>;
  writes: StepWrite[];
}

/** The step run an outcome creates: claimed by the recording worker, or queued for any. */
export interface NextStep {
  id: string;
  index: number;
  name: string;
  type: string;
  /** Inserted RUNNING under the recording worker's lease (it continues the run), else PENDING. */
  claimHere: boolean;
}

/** What becomes of the claimed step run. */
export type StepChange =
  | { status: 'COMPLETED'; output: Record<string, unknown> }
  /**
   * Parked until `dueAt` (a timer) or, when null, until a signal or decision wakes it; with
   * `takeBufferedSignal`, woken at once instead by the oldest buffered signal it matches, if any.
   */
  | { status: 'WAITING'; dueAt: Date | null; takeBufferedSignal?: BufferedSignalFilter }
  /** Its next attempt, due after the back-off. */
  | { status: 'PENDING'; attempt: number; delayMs: number; error: string }
  | { status: 'FAILED'; error: string };

interface RunPosition {
  state: Record<string, unknown>;
  currentIndex: number;
  stepsExecuted: number;
}

/** What becomes of the run: still going (or parked), or finished. */
export type RunChange =
  | (RunPosition & { status: 'RUNNING' | 'WAITING' | 'PAUSED' })
  | (RunPosition & { status: 'COMPLETED'; output: Record<string, unknown> })
  | (RunPosition & { status: 'FAILED'; error: string; failedStep: string });

/**
 * Every write a step's outcome makes, decided before anything is written (the executor's pure
 * planner) and applied by the queue's one writer (`OutcomeWriter`), batched or in a transaction.
 */
export interface OutcomePlan {
  step: StepChange;
  next: NextStep | null;
  run: RunChange;
  /** Recorded in order after the step's own events (those it emitted, then its writes'). */
  events: NewRunEvent[];
  /** The outcome's own writes, after the step's buffered ones, in the same transaction. */
  effects: StepWrite | null;
  /** A timer this outcome set (wait, retry back-off): the worker may look for work then. */
  wakeAt: Date | null;
}
