import type { StepDefinition } from './step-definition';
import type {
  BufferedSignalFilter,
  DefinitionSettings,
  ReceivedSignal,
  StepWrite,
  WakeReason,
} from '../queue/outcome-plan';
import type { RunEventType } from '../queue/run-events';

export type {
  DefinitionSettings,
  ReceivedSignal,
  StepTransaction,
  WakeReason,
} from '../queue/outcome-plan';

export interface StepContext {
  workspaceId: string;
  runId: string;
  stepRunId: string;
  /** The executor holding the step's lease (a `map` step's item writes check it still does). */
  workerId: string;
  stepIndex: number;
  attempt: number;
  step: StepDefinition;
  /** All steps of the definition, for jumps by name. */
  steps: readonly StepDefinition[];
  /** The definition's run-level settings (its maxCostUsd and onBudgetExceeded). */
  definition: DefinitionSettings;
  /** The run state (a copy: steps return results, they do not mutate state). */
  state: Record<string, unknown>;
  wake: WakeReason;
  signal: ReceivedSignal | null;
  /** Fires when the run is cancelled, the step times out or the process shuts down. */
  abortSignal: AbortSignal;
  /** Records a run event; events are written, in order, with the step's outcome. */
  emit(type: RunEventType, payload?: Record<string, unknown>): void;
  /** Registers a write for the outcome's transaction (cost records, for instance). */
  onCommit(write: StepWrite): void;
}

/** Side effects written in the outcome's transaction (an approval request, its events...). */
export type StepEffects = StepWrite;

export type StepOutcome =
  | {
      kind: 'complete';
      output: Record<string, unknown>;
      /** Index of the step to run next; default: the following step. */
      next?: number;
      /** Extra state changes besides storing the output under outputKey. */
      statePatch?: Record<string, unknown>;
      effects?: StepEffects;
    }
  /**
   * The run goes WAITING until `dueAt` (a timer) or, when null, until a signal. With
   * `takeBufferedSignal`, a signal buffered for the run (POST …/signals) that it matches ends the wait
   * at once: the oldest one is taken under the run's lock when the wait is recorded, and the step is
   * woken with it as a resume would (README "Signals").
   */
  | {
      kind: 'wait';
      dueAt: Date | null;
      takeBufferedSignal?: BufferedSignalFilter;
      effects?: StepEffects;
    }
  /**
   * The run goes PAUSED until a human decision re-queues the step or, when `dueAt` is set (an
   * approval's timeout), until then: the step is executed again, woken by its timer.
   */
  | { kind: 'pause'; dueAt?: Date | null; effects?: StepEffects }
  | {
      kind: 'fail';
      error: string;
      /** false for failures a retry cannot fix (unknown handler, missing placeholder). */
      retryable: boolean;
      /** Continue at this step instead of failing the run (approval rejected with regeneration). */
      jumpTo?: number;
      statePatch?: Record<string, unknown>;
      effects?: StepEffects;
    };

/** One implementation per step type: the provider its descriptor names (StepTypeDescriptor). */
export interface StepExecutor {
  execute(ctx: StepContext): Promise<StepOutcome>;
}

/** A failure that retrying cannot fix. */
export class NonRetryableError extends Error {}
