/**
 * What the Run page offers and derives: which actions a status allows (README "Transitions"), the
 * resume and signal forms' checks, the signal type the waiting step expects, and the state a step run started
 * from. Pure, unit-tested in run-rules.spec.ts.
 */

/** `cancel` moves these to CANCELLED; finished runs answer 409. */
const CANCELLABLE: ReadonlySet<string> = new Set(['PENDING', 'RUNNING', 'WAITING', 'PAUSED']);

export function canCancel(status: string): boolean {
  return CANCELLABLE.has(status);
}

/**
 * `resume` delivers a signal to a WAITING run (an external event, or a wait woken early). A PAUSED run
 * waits for an approval decision instead (resume answers 409): the page points to the inbox then.
 */
export function canResume(status: string): boolean {
  return status === 'WAITING';
}

export function canRetry(status: string): boolean {
  return status === 'FAILED';
}

/**
 * A signal (POST …/signals, README "Signals") is taken until the run ends: delivered when the run
 * waits for it, buffered otherwise. Finished runs answer 409.
 */
export function canSignal(status: string): boolean {
  return CANCELLABLE.has(status);
}

export type JsonObjectResult =
  { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * The resume payload typed by the user: a JSON object (the API refuses anything else). Empty text is
 * the empty object, as the API's default. The message says what is wrong, with the parser's position.
 */
export function parseJsonObject(text: string): JsonObjectResult {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `Not valid JSON: ${detail}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, message: `The payload must be a JSON object ({…}), not ${kind}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export type JsonValueResult = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A signal's payload typed by the user: any JSON value (the API takes any), empty text being the
 * empty object, as the API's default. The message says what is wrong, with the parser's position.
 */
export function parseJsonValue(text: string): JsonValueResult {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `Not valid JSON: ${detail}` };
  }
}

/** The longest signal type the API takes (as an external_event step's signalType). */
export const SIGNAL_TYPE_MAX_CHARS = 100;

/**
 * A signal type as the API takes it: 1-100 characters (trimmed here, since spaces are a typo),
 * counted as characters (code points), as the API counts them.
 */
export function signalTypeProblem(signalType: string): string | undefined {
  const trimmed = signalType.trim();
  if (trimmed === '') return 'Enter the signal type the run waits for.';
  const length = Array.from(trimmed).length;
  if (length > SIGNAL_TYPE_MAX_CHARS) {
    return `A signal type has at most ${SIGNAL_TYPE_MAX_CHARS} characters (this one has ${length}).`;
  }
  return undefined;
}

/** What the page says once the API took a signal. */
export function signalOutcome(status: 'delivered' | 'buffered', signalType: string): string {
  return status === 'delivered'
    ? `The "${signalType}" signal was delivered to the waiting step; the run goes on.`
    : `The "${signalType}" signal was buffered: the next external_event step of its type takes it.`;
}

export interface DefinitionStepLike {
  type: string;
  name: string;
  [field: string]: unknown;
}

/**
 * The signal type the run waits for: the `signalType` of the external_event step it is parked on, if
 * the definition names one (the API then refuses any other type with 409).
 */
export function expectedSignalType(
  steps: DefinitionStepLike[] | undefined,
  currentStepIndex: number | undefined,
): string | undefined {
  if (!steps || currentStepIndex === undefined) return undefined;
  const step = steps[currentStepIndex];
  if (step?.type !== 'external_event') return undefined;
  return typeof step.signalType === 'string' ? step.signalType : undefined;
}

export interface StepRunLike {
  id: string;
  stepIndex: number;
  stepName: string;
  status: string;
  output: Record<string, unknown> | null;
}

/**
 * The run state a step run started from (README "State, outputs and templates"): the run input, with
 * the output of every step run completed before it stored under that step's `outputKey` (its name by
 * default), later ones replacing earlier ones. Undefined for an unknown step run.
 */
export function stateBefore(
  input: Record<string, unknown>,
  stepRuns: StepRunLike[],
  definitionSteps: DefinitionStepLike[] | undefined,
  stepRunId: string,
): Record<string, unknown> | undefined {
  const index = stepRuns.findIndex((s) => s.id === stepRunId);
  if (index < 0) return undefined;
  const state: Record<string, unknown> = { ...input };
  for (const earlier of stepRuns.slice(0, index)) {
    if (earlier.status !== 'COMPLETED' || earlier.output === null) continue;
    const defined = definitionSteps?.[earlier.stepIndex];
    const key =
      defined && typeof defined.outputKey === 'string' && defined.outputKey !== ''
        ? defined.outputKey
        : earlier.stepName;
    state[key] = earlier.output;
  }
  return state;
}
