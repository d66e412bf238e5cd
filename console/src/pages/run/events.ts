/**
 * The Run page's event rules: merging what the list and the live stream deliver (each event once, in
 * the order recorded), the type and failed-only filters, and what an event says about the run's status.
 * Pure, unit-tested in events.spec.ts.
 */

export interface RunEventLike {
  id: string;
  eventType: string;
  stepRunId: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

/** Every event type of the API (GET /v1/workflow-runs/:id/events), in the README's order. */
export const RUN_EVENT_TYPES = [
  'WORKFLOW_STARTED',
  'WORKFLOW_COMPLETED',
  'WORKFLOW_FAILED',
  'WORKFLOW_CANCELLED',
  'STEP_STARTED',
  'STEP_COMPLETED',
  'STEP_FAILED',
  'STEP_RETRYING',
  'LLM_CALL_STARTED',
  'LLM_CALL_COMPLETED',
  'LLM_CALL_FAILED',
  'LLM_FALLBACK_TRIGGERED',
  'GUARDRAIL_TRIGGERED',
  'TOOL_CALL_EXECUTED',
  'APPROVAL_REQUESTED',
  'APPROVAL_DECIDED',
  'SIGNAL_RECEIVED',
  'CHILD_RUN_STARTED',
  'CHILD_RUN_FINISHED',
  'MAP_ITEM_COMPLETED',
  'MAP_ITEM_FAILED',
  'APPROVAL_VOTE_RECORDED',
  'APPROVAL_EXPIRED',
  'APPROVAL_ESCALATED',
  'SIGNAL_BUFFERED',
  'SIGNALS_DROPPED',
  'BUDGET_EXCEEDED',
] as const;

/** The events after which the run has nothing more to say (until a FAILED run is retried). */
export const TERMINAL_EVENT_STATUS: Readonly<Record<string, 'COMPLETED' | 'FAILED' | 'CANCELLED'>> =
  {
    WORKFLOW_COMPLETED: 'COMPLETED',
    WORKFLOW_FAILED: 'FAILED',
    WORKFLOW_CANCELLED: 'CANCELLED',
  };

/** Events that report something going wrong: what "failed only" keeps. */
const FAILURE_TYPES: ReadonlySet<string> = new Set([
  'WORKFLOW_FAILED',
  'STEP_FAILED',
  'STEP_RETRYING',
  'LLM_CALL_FAILED',
  'LLM_FALLBACK_TRIGGERED',
  'GUARDRAIL_TRIGGERED',
  'MAP_ITEM_FAILED',
  'BUDGET_EXCEEDED',
]);

export function isTerminalEvent(eventType: string): boolean {
  return eventType in TERMINAL_EVENT_STATUS;
}

export function isFailureEvent(event: { eventType: string }): boolean {
  return FAILURE_TYPES.has(event.eventType);
}

/**
 * `known` followed by the events of `incoming` not in it yet (by id), in their order. Returns `known`
 * itself when nothing is new, so that a replayed stream causes no re-render.
 */
export function mergeEvents<T extends { id: string }>(known: T[], incoming: T[]): T[] {
  const seen = new Set(known.map((e) => e.id));
  const added: T[] = [];
  for (const event of incoming) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    added.push(event);
  }
  return added.length === 0 ? known : [...known, ...added];
}

/** The events shown under the filters: one type (or all), and only failures when asked. */
export function filterEvents<T extends { eventType: string }>(
  events: T[],
  filter: { type?: string; failedOnly?: boolean },
): T[] {
  return events.filter(
    (event) =>
      (!filter.type || event.eventType === filter.type) &&
      (!filter.failedOnly || isFailureEvent(event)),
  );
}

/**
 * The run status an event proves, for the header to change at once (the page reads the run again
 * right after): the workflow's own events, a parked approval, and the transitions that set it running.
 * Undefined when the event says nothing about the status.
 */
export function statusAfterEvent(event: {
  eventType: string;
  payload: Record<string, unknown>;
}): string | undefined {
  if (isTerminalEvent(event.eventType)) return TERMINAL_EVENT_STATUS[event.eventType];
  switch (event.eventType) {
    case 'WORKFLOW_STARTED':
    case 'SIGNAL_RECEIVED':
    case 'APPROVAL_DECIDED':
    case 'CHILD_RUN_FINISHED':
      return 'RUNNING';
    case 'APPROVAL_REQUESTED':
    case 'APPROVAL_ESCALATED':
      return 'PAUSED';
    case 'STEP_RETRYING':
      return event.payload.manual === true ? 'RUNNING' : undefined;
    default:
      return undefined;
  }
}

/** The step name an event is about, when its payload names one. */
export function eventStepName(event: { payload: Record<string, unknown> }): string | undefined {
  const name = event.payload.stepName;
  return typeof name === 'string' ? name : undefined;
}

/** The event types present, in the API's order, for the type filter's options. */
export function presentTypes(events: { eventType: string }[]): string[] {
  const present = new Set(events.map((e) => e.eventType));
  const known: string[] = RUN_EVENT_TYPES.filter((type) => present.has(type));
  // A type newer than this console still gets an option.
  const unknown = [...present].filter(
    (type) => !(RUN_EVENT_TYPES as readonly string[]).includes(type),
  );
  return [...known, ...unknown.sort()];
}
