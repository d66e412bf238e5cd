/**
 * The pending queue's rules: moving through it, what is selected after a decision (the next request,
 * so that a queue is cleared without the mouse), the list's continuation link, and the row preview.
 */

/** The request `step` places after `current` (clamped at both ends; the first when `current` is gone). */
export function neighbour(
  ids: readonly string[],
  current: string | undefined,
  step: 1 | -1,
): string | undefined {
  if (ids.length === 0) return undefined;
  const index = current === undefined ? -1 : ids.indexOf(current);
  if (index < 0) return ids[0];
  return ids[Math.min(Math.max(index + step, 0), ids.length - 1)];
}

/**
 * What to select once `decided` has left the queue: the request that followed it, or the one before
 * it when it was the last; undefined when the queue is empty.
 */
export function selectionAfterDecision(
  ids: readonly string[],
  decided: string,
): string | undefined {
  const index = ids.indexOf(decided);
  const rest = ids.filter((id) => id !== decided);
  if (rest.length === 0) return undefined;
  if (index < 0) return rest[0];
  return rest[Math.min(index, rest.length - 1)];
}

/**
 * The query of the `rel="next"` part of a `Link` header (`</v1/approval-requests?...>; rel="next"`),
 * or undefined when the answer was complete.
 */
export function nextLinkQuery(link: string | null | undefined): Record<string, string> | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!match || !/(?:^|;)\s*rel\s*=\s*"?next"?\s*(?:;|$)/i.test(match[2])) continue;
    const url = new URL(match[1], 'http://link.invalid');
    return Object.fromEntries(url.searchParams.entries());
  }
  return undefined;
}

/** One line of the content under review for the list: compact JSON, cut at `max` characters. */
export function contentPreview(content: unknown, max = 140): string {
  let text: string;
  try {
    text = JSON.stringify(content) ?? String(content);
  } catch {
    text = String(content);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** design.md §4: a decision's comment holds at most 2000 characters. */
export const MAX_COMMENT_LENGTH = 2000;

/** Why the rejection comment cannot be sent, or undefined when it can. */
export function commentProblem(comment: string): string | undefined {
  if (comment.length > MAX_COMMENT_LENGTH) {
    return `The comment has ${comment.length} characters; at most ${MAX_COMMENT_LENGTH} are allowed.`;
  }
  return undefined;
}

/** The first characters of a run id, as the list shows it (the full id is in the link). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** The comment as sent: none when only blanks were typed, otherwise the text without outer blanks. */
export function commentToSend(comment: string): string | undefined {
  const trimmed = comment.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** What the policy rules below read of a request (README "Approval policies"). */
export interface PolicyView {
  requiredApprovals: number;
  approvals: ReadonlyArray<{ decidedBy: string; decision: string }>;
}

/** The distinct reviewers who approved so far, in the order they did. */
export function approverNames(request: PolicyView): string[] {
  const names: string[] = [];
  for (const vote of request.approvals) {
    if (vote.decision === 'approved' && !names.includes(vote.decidedBy)) names.push(vote.decidedBy);
  }
  return names;
}

/** `1 of 2 approvals` for a request that needs several; undefined for a single approver. */
export function quorumProgress(request: PolicyView): string | undefined {
  if (request.requiredApprovals <= 1) return undefined;
  return `${approverNames(request).length} of ${request.requiredApprovals} approvals`;
}

/** Whether `reviewer` has approved the request already (a second approval of theirs is refused). */
export function hasApproved(request: PolicyView, reviewer: string): boolean {
  return approverNames(request).includes(reviewer);
}

/** Names an assignee filter may hold (the service's limit). */
export const MAX_ASSIGNEE_LENGTH = 200;

/** The assignee filter as sent: the text without outer blanks, none when blank. */
export function assigneeFilter(text: string | undefined): string | undefined {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_ASSIGNEE_LENGTH);
}

/** What the request's last timeout does, in words. */
export function onTimeoutText(onTimeout: string | null): string | undefined {
  const texts: Record<string, string> = {
    reject: 'then it is rejected',
    approve: 'then it is approved',
    fail: 'then the run fails',
  };
  return onTimeout === null ? undefined : texts[onTimeout];
}
