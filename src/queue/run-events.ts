import type { Queryable } from '../common/database';
import { ANNOUNCE_RUN_EVENTS } from './queue.sql';

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
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export interface NewRunEvent {
  runId: string;
  workspaceId: string;
  stepRunId: string | null;
  type: RunEventType;
  payload?: Record<string, unknown>;
}

/**
 * Records events in one statement, in array order, and announces their runs to the live event streams
 * (ANNOUNCE_RUN_EVENTS): `seq` (a sequence) fixes the order the API reports, since several events of
 * one run often share a millisecond.
 */
export async function insertEvents(client: Queryable, events: NewRunEvent[]): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `WITH inserted AS (
       INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[])
       RETURNING run_id
     ), ${ANNOUNCE_RUN_EVENTS('inserted')}
     SELECT count(*) AS announced FROM announced`,
    eventColumns(events),
  );
}

/** The events as the five parallel arrays that `unnest` turns back into rows, in order. */
export function eventColumns(events: NewRunEvent[]): unknown[][] {
  return [
    events.map((e) => e.runId),
    events.map((e) => e.workspaceId),
    events.map((e) => e.stepRunId),
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e.payload ?? {})),
  ];
}
