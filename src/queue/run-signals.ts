import type { Queryable } from '../common/database';
import type { BufferedSignalFilter } from './outcome-plan';
import * as SQL from './queue.sql';
import type { NewRunEvent } from './run-events';

/**
 * The buffer of signals that arrive before their step (README "Signals"), as the queue's writers use
 * it: an external_event step taking one when it parks, a run's end dropping the rest. Both run in the
 * transaction that records the outcome, which holds the run's lock (queue.sql.ts explains why that
 * closes every race with POST …/signals).
 */

/** The event types that end a run: a run's dropped signals are recorded just before them. */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  'WORKFLOW_COMPLETED',
  'WORKFLOW_FAILED',
  'WORKFLOW_CANCELLED',
]);

/** Where a step that parks is: what its signal's event names. */
export interface ParkingStep {
  id: string;
  runId: string;
  workspaceId: string;
  stepName: string;
}

/**
 * Takes the oldest buffered signal of the run that `filter` matches and wakes `step` with it
 * (TAKE_BUFFERED_SIGNAL). Returns the SIGNAL_RECEIVED event to record, or null when the run holds no
 * such signal (the step is to park).
 */
export async function takeBufferedSignal(
  client: Queryable,
  step: ParkingStep,
  filter: BufferedSignalFilter,
): Promise<NewRunEvent | null> {
  const { rows } = await client.query<{
    id: string;
    signal_type: string;
    payload: unknown;
    received_at: string;
  }>(SQL.TAKE_BUFFERED_SIGNAL, [step.id, step.runId, filter.signalType]);
  const taken = rows[0];
  if (!taken) return null;
  return {
    runId: step.runId,
    workspaceId: step.workspaceId,
    stepRunId: step.id,
    type: 'SIGNAL_RECEIVED',
    payload: {
      signalType: taken.signal_type,
      stepName: step.stepName,
      payload: taken.payload,
      signalId: taken.id,
      buffered: true,
      receivedAt: taken.received_at,
    },
  };
}

/**
 * Drops every signal the run still holds buffered (DROP_RUN_SIGNALS), for a run that ends in this
 * transaction. Returns the SIGNALS_DROPPED event to record before the run's terminal event, or null
 * when there was none.
 */
export async function dropBufferedSignals(
  client: Queryable,
  runId: string,
  workspaceId: string,
): Promise<NewRunEvent | null> {
  const { rows } = await client.query<{ id: string; signal_type: string }>(SQL.DROP_RUN_SIGNALS, [
    runId,
  ]);
  if (rows.length === 0) return null;
  return {
    runId,
    workspaceId,
    stepRunId: null,
    type: 'SIGNALS_DROPPED',
    payload: {
      count: rows.length,
      signals: rows.map((r) => ({ id: r.id, signalType: r.signal_type })),
    },
  };
}

/**
 * `events` with `dropped` placed just before the run's terminal event (at the end when there is none),
 * so that the terminal event stays the run's last: live streams end after it.
 */
export function beforeTerminalEvent(events: NewRunEvent[], dropped: NewRunEvent): NewRunEvent[] {
  const at = events.findIndex((e) => e.runId === dropped.runId && TERMINAL_EVENTS.has(e.type));
  if (at < 0) return [...events, dropped];
  return [...events.slice(0, at), dropped, ...events.slice(at)];
}
