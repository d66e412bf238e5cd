import { enqueueWebhookEvent } from '../queue/outbox';
import type { StepTransaction } from '../steps/step-executor';
import type { ApprovalRow, ApprovalsRepository } from './approvals.repository';

/**
 * An approval request made by a step other than `approval` (an llm step over its budget), in the
 * transaction that pauses the run: the request, APPROVAL_REQUESTED and the approval.requested webhook,
 * as the approval step makes them for a step without a policy (no assignees, one decision, no
 * timeout). A decision wakes the step with the APPROVAL_SIGNAL signal.
 */
export async function requestApproval(
  approvals: ApprovalsRepository,
  tx: StepTransaction,
  r: {
    stepName: string;
    contentKey: string;
    content: Record<string, unknown>;
    prompt: string;
  },
): Promise<ApprovalRow> {
  const request = await approvals.create(tx.client, {
    workspaceId: tx.workspaceId,
    runId: tx.runId,
    stepRunId: tx.stepRunId,
    ...r,
    assignees: [],
    requiredApprovals: 1,
    expiresAt: null,
    onTimeout: null,
  });
  tx.event('APPROVAL_REQUESTED', {
    stepName: r.stepName,
    approvalRequestId: request.id,
    contentKey: r.contentKey,
    prompt: r.prompt,
  });
  await enqueueWebhookEvent(tx.client, {
    workspaceId: tx.workspaceId,
    runId: tx.runId,
    event: 'approval.requested',
    data: { approvalRequestId: request.id, ...r },
  });
  return request;
}
