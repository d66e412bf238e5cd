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
