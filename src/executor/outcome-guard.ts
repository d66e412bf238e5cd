import { jsonProblem, sanitizeJson, sanitizeText } from '../common/json-safety';
import { outputKeyOf, type StepDefinition } from '../steps/step-definition';
import type { BufferedWork, ClaimedStep } from '../queue/outcome-plan';
import type { StepOutcome, StepTransaction } from '../steps/step-executor';

/** Nesting allowed in a step's result (output and state changes) before it is refused. */
export const MAX_RESULT_DEPTH = 256;

/**
 * Error texts (of the step run, the run, STEP_FAILED, WORKFLOW_FAILED, workflow.failed) and every
 * string in the step's run events are cut at this many characters: an exception message can be a
 * whole HTTP body, and it is copied into five places.
 */
export const MAX_ERROR_CHARS = 4096;

export interface OutcomeLimits {
  /** STEP_RESULT_MAX_BYTES: the output and state changes of one step, as JSON. */
  resultMaxBytes: number;
  /** RUN_STATE_MAX_BYTES: the run state once the step's result is applied, as JSON. */
  stateMaxBytes: number;
}

/**
 * The one boundary between a step's outcome and the database. An outcome that cannot be stored would
 * fail its recording at every claim (the step re-executed forever), so everything the outcome brings
 * is made storable here, in one place:
 * - texts that only describe (the error, run event payloads, including those the outcome's effects
 *   and registered writes record) are sanitised: U+0000 and unpaired surrogates become U+FFFD, long
 *   strings are cut at MAX_ERROR_CHARS;
 * - values that are data (the output, state changes) are never altered: one that PostgreSQL cannot
 *   store, that JSON cannot represent, nested deeper than MAX_RESULT_DEPTH, larger than the result cap,
 *   or that would make the run state larger than the state cap fails the step without retries (a
 *   retry would produce the same result) with a message naming the problem or the limit.
 * Mutates `buffered` (its events and writes) and returns the outcome to record.
 */
export function guardOutcome(
  claimed: ClaimedStep,
  step: StepDefinition,
  outcome: StepOutcome,
  buffered: BufferedWork,
  limits: OutcomeLimits,
): StepOutcome {
  const problem = resultProblem(claimed, step, outcome, limits);
  let guarded: StepOutcome = problem ? { kind: 'fail', error: problem, retryable: false } : outcome;
  if (guarded.kind === 'fail') {
    guarded = { ...guarded, error: sanitizeText(guarded.error, MAX_ERROR_CHARS) };
  }
  for (const event of buffered.events) {
    if (event.payload) event.payload = sanitizeJson(event.payload, MAX_ERROR_CHARS);
  }
  buffered.writes = buffered.writes.map((write) => (tx) => write(sanitizingEvents(tx)));
  const effects = guarded.effects;
  if (effects) guarded = { ...guarded, effects: (tx) => effects(sanitizingEvents(tx)) };
  return guarded;
}

/** The transaction handle given to effects and writes: the events they record are sanitised too. */
function sanitizingEvents(tx: StepTransaction): StepTransaction {
  return {
    ...tx,
    event: (type, payload) => tx.event(type, payload && sanitizeJson(payload, MAX_ERROR_CHARS)),
  };
}

/** Why the outcome's output and state changes cannot be recorded, if they cannot. */
function resultProblem(
  claimed: ClaimedStep,
  step: StepDefinition,
  outcome: StepOutcome,
  limits: OutcomeLimits,
): string | undefined {
  if (outcome.kind !== 'complete' && outcome.kind !== 'fail') return undefined;
  const patch = outcome.statePatch ?? {};
  const result =
    outcome.kind === 'complete' ? { output: outcome.output, state: patch } : { state: patch };
  // Checked first: it walks without recursion, so a deep or cyclic value cannot overflow the stack
  // of JSON.stringify below.
  const problem = jsonProblem(result, MAX_RESULT_DEPTH);
  if (problem) return `the step's result cannot be stored: ${problem.field}: ${problem.message}`;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(result));
  } catch (err) {
    // A BigInt, or a toJSON that throws.
    return `the step's result cannot be stored: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (bytes > limits.resultMaxBytes) {
    return (
      `the step's result is ${bytes} bytes of JSON, over the limit of ${limits.resultMaxBytes} ` +
      `bytes (STEP_RESULT_MAX_BYTES)`
    );
  }
  if (outcome.kind === 'fail' && outcome.statePatch === undefined) return undefined;
  const state =
    outcome.kind === 'complete'
      ? { ...claimed.run.state, ...patch, [outputKeyOf(step)]: outcome.output }
      : { ...claimed.run.state, ...patch };
  const stateBytes = Buffer.byteLength(JSON.stringify(state));
  if (stateBytes > limits.stateMaxBytes) {
    return (
      `the run state would be ${stateBytes} bytes of JSON with this step's result, over the ` +
      `limit of ${limits.stateMaxBytes} bytes (RUN_STATE_MAX_BYTES)`
    );
  }
  return undefined;
}
