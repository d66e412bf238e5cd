import { WEBHOOK_READY_CHANNEL } from './channels';
import type { Queryable } from '../common/database';

export const WEBHOOK_EVENT_TYPES = [
  'workflow.completed',
  'workflow.failed',
  'workflow.cancelled',
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'approval.escalated',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The `data` of each webhook event type (design §8): every body the service sends is built here. */
export interface WebhookData {
  'workflow.completed': { status: 'COMPLETED'; output: unknown; completedAt: string };
  'workflow.failed': { status: 'FAILED'; error: string; failedStep: string; failedAt: string };
  'workflow.cancelled': { status: 'CANCELLED'; cancelledAt: string };
  'approval.requested': {
    approvalRequestId: string;
    stepName: string;
    contentKey: string;
    content: Record<string, unknown>;
    prompt: string;
    /** The policy, when the step sets one (assignees, requiredApprovals or timeoutMs). */
    assignees?: string[];
    requiredApprovals?: number;
    expiresAt?: string | null;
  };
  'approval.decided': {
    approvalRequestId: string;
    stepName: string;
    decision: string;
    decidedBy: string;
    decidedAt: string;
  };
  /** The request's last timeout passed undecided; `onTimeout` says what became of it. */
  'approval.expired': {
    approvalRequestId: string;
    stepName: string;
    onTimeout: string;
    assignees: string[];
    /** The decisions made before it expired (approvals short of the quorum). */
    approvals: Array<{
      decidedBy: string;
      decision: string;
      decidedAt: string;
      comment: string | null;
    }>;
    requiredApprovals: number;
    expiresAt: string;
    expiredAt: string;
  };
  /** The request's first timeout passed undecided: it went to `escalateTo`'s assignees. */
  'approval.escalated': {
    approvalRequestId: string;
    stepName: string;
    assignees: string[];
    escalatedFrom: string[];
    escalatedAt: string;
    /** The second timeout; null when escalateTo has none. */
    expiresAt: string | null;
  };
}

export interface WebhookEvent<E extends WebhookEventType = WebhookEventType> {
  workspaceId: string;
  runId: string;
  event: E;
  data: WebhookData[E];
}

/** The body of a delivery: fixed when the event happens, so every attempt sends the same bytes. */
export function webhookBody(e: WebhookEvent, timestamp: string): Record<string, unknown> {
  return {
    event: e.event,
    workflowRunId: e.runId,
    workspaceId: e.workspaceId,
    data: e.data,
    timestamp,
  };
}

/**
 * Writes one delivery row per active webhook subscribed to the event, inside the caller's transaction
 * (the outbox of design §8): the state change and its deliveries commit or vanish together. The body is
 * fixed now, so every attempt sends the same bytes under the same `webhook-id`.
 */
export async function enqueueWebhookEvent<E extends WebhookEventType>(
  client: Queryable,
  e: WebhookEvent<E>,
): Promise<number> {
  const body = webhookBody(e, new Date().toISOString());
  const res = await client.query(
    `INSERT INTO webhook_deliveries (webhook_id, workspace_id, message_id, event_type, run_id, body, next_attempt_at)
     SELECT w.id, w.workspace_id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), $2::varchar, $3::uuid, $4::jsonb, now()
     FROM webhooks w
     WHERE w.workspace_id = $1 AND w.is_active AND $2::text = ANY (w.events)`,
    [e.workspaceId, e.event, e.runId, JSON.stringify(body)],
  );
  const count = res.rowCount ?? 0;
  if (count > 0) await client.query(`SELECT pg_notify($1, '')`, [WEBHOOK_READY_CHANNEL]);
  return count;
}
