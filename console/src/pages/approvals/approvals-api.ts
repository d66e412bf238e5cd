/** The inbox's calls to the API (through the typed client), apart from the components. */
import type { components, paths } from '../../../../client';
import { api, unwrap } from '../../api';
import { nextLinkQuery } from './queue';

export type ApprovalRequest = components['schemas']['ApprovalRequestDto'];
export type ApprovalDecision = components['schemas']['ApprovalDecisionDto'];
export type ApprovalVote = components['schemas']['ApprovalVoteDto'];
export type DecideBody = components['schemas']['DecideApprovalDto'];
type ListQuery = NonNullable<paths['/v1/approval-requests']['get']['parameters']['query']>;

/**
 * At most this many parts of the pending list are read (each up to APPROVAL_LIST_MAX_ITEMS, 500 by
 * default); a queue longer than that shows its oldest requests and says that there are more.
 */
const MAX_PENDING_PARTS = 10;

export interface PendingQueue {
  items: ApprovalRequest[];
  /** True when the queue is longer than what was read. */
  more: boolean;
}

async function listPart(
  query: ListQuery,
): Promise<{ items: ApprovalRequest[]; next: ListQuery | undefined }> {
  const result = await api.GET('/v1/approval-requests', { params: { query } });
  const items = await unwrap(Promise.resolve(result));
  const next = nextLinkQuery(result.response.headers.get('Link'));
  return { items, next: next as ListQuery | undefined };
}

/**
 * Every undecided request of the workspace (for `assignee` only, when given), oldest first, following
 * the `Link` header's next parts (which keep the filter).
 */
export async function loadPending(assignee?: string): Promise<PendingQueue> {
  const items: ApprovalRequest[] = [];
  const seen = new Set<string>();
  let query: ListQuery | undefined = { pending: 'true', order: 'oldest', assignee };
  for (let part = 0; part < MAX_PENDING_PARTS && query; part++) {
    const answer = await listPart(query);
    for (const item of answer.items) {
      if (!seen.has(item.id)) items.push(item);
      seen.add(item.id);
    }
    query = answer.next;
  }
  return { items, more: query !== undefined };
}

/** One part of the decided requests, newest first; `next` continues with older ones. */
export function loadDecided(
  query: ListQuery,
): Promise<{ items: ApprovalRequest[]; next: ListQuery | undefined }> {
  return listPart(query);
}

export type { ListQuery };

/** One request as it is now (decided or not); 404 when it is gone or of another workspace. */
export function getRequest(id: string): Promise<ApprovalRequest> {
  return unwrap(api.GET('/v1/approval-requests/{id}', { params: { path: { id } } }));
}

/** Decides; `decidedBy` is never sent: the service takes the session's reviewer name. */
export function decide(id: string, body: DecideBody): Promise<ApprovalDecision> {
  return unwrap(api.POST('/v1/approval-requests/{id}/decide', { params: { path: { id } }, body }));
}
