import {
  approverNames,
  assigneeFilter,
  hasApproved,
  MAX_ASSIGNEE_LENGTH,
  onTimeoutText,
  quorumProgress,
  commentProblem,
  commentToSend,
  contentPreview,
  MAX_COMMENT_LENGTH,
  neighbour,
  nextLinkQuery,
  selectionAfterDecision,
  shortId,
} from './queue';

describe('neighbour', () => {
  const ids = ['a', 'b', 'c'];

  it('moves one step and stops at both ends', () => {
    expect(neighbour(ids, 'a', 1)).toBe('b');
    expect(neighbour(ids, 'b', 1)).toBe('c');
    expect(neighbour(ids, 'c', 1)).toBe('c');
    expect(neighbour(ids, 'b', -1)).toBe('a');
    expect(neighbour(ids, 'a', -1)).toBe('a');
  });

  it('starts at the first request when nothing (or something gone) is selected', () => {
    expect(neighbour(ids, undefined, 1)).toBe('a');
    expect(neighbour(ids, 'gone', -1)).toBe('a');
  });

  it('has nothing to select in an empty queue', () => {
    expect(neighbour([], 'a', 1)).toBeUndefined();
  });
});

describe('selectionAfterDecision', () => {
  it('selects the request that followed the decided one', () => {
    expect(selectionAfterDecision(['a', 'b', 'c'], 'a')).toBe('b');
    expect(selectionAfterDecision(['a', 'b', 'c'], 'b')).toBe('c');
  });

  it('selects the one before when the last was decided', () => {
    expect(selectionAfterDecision(['a', 'b', 'c'], 'c')).toBe('b');
  });

  it('selects nothing once the queue is empty', () => {
    expect(selectionAfterDecision(['a'], 'a')).toBeUndefined();
  });

  it('selects the first when the decided request was not in the list', () => {
    expect(selectionAfterDecision(['a', 'b'], 'x')).toBe('a');
  });

  it('clears a queue of three in order', () => {
    let queue = ['a', 'b', 'c'];
    let selected: string | undefined = 'a';
    const order: string[] = [];
    while (selected) {
      order.push(selected);
      const next = selectionAfterDecision(queue, selected);
      queue = queue.filter((id) => id !== selected);
      selected = next;
    }
    expect(order).toEqual(['a', 'b', 'c']);
  });
});

describe('nextLinkQuery', () => {
  it('reads the query of the next part', () => {
    expect(
      nextLinkQuery(
        '</v1/approval-requests?pending=true&order=oldest&after=0b4e3c0e-8f5c-4a8e-9f0a-1c2d3e4f5a6b>; rel="next"',
      ),
    ).toEqual({
      pending: 'true',
      order: 'oldest',
      after: '0b4e3c0e-8f5c-4a8e-9f0a-1c2d3e4f5a6b',
    });
  });

  it('finds rel="next" among other parts and without quotes', () => {
    expect(
      nextLinkQuery('</v1/x?page=1>; rel="first", </v1/approval-requests?before=b1>; rel=next'),
    ).toEqual({ before: 'b1' });
  });

  it('is undefined without a header or without a next part', () => {
    expect(nextLinkQuery(null)).toBeUndefined();
    expect(nextLinkQuery('')).toBeUndefined();
    expect(nextLinkQuery('</v1/x?page=1>; rel="prev"')).toBeUndefined();
    expect(nextLinkQuery('not a link header')).toBeUndefined();
  });
});

describe('contentPreview', () => {
  it('shows short content as compact JSON', () => {
    expect(contentPreview({ title: 'Hi', n: 1 })).toBe('{"title":"Hi","n":1}');
  });

  it('cuts long content with an ellipsis at the limit', () => {
    const preview = contentPreview({ text: 'x'.repeat(500) }, 40);
    expect(preview).toHaveLength(40);
    expect(preview.endsWith('…')).toBe(true);
  });
});

describe('the rejection comment', () => {
  it('allows up to 2000 characters', () => {
    expect(MAX_COMMENT_LENGTH).toBe(2000);
    expect(commentProblem('x'.repeat(2000))).toBeUndefined();
    expect(commentProblem('x'.repeat(2001))).toBe(
      'The comment has 2001 characters; at most 2000 are allowed.',
    );
  });

  it('is sent trimmed, and not at all when blank', () => {
    expect(commentToSend('  too long \n')).toBe('too long');
    expect(commentToSend(' \n ')).toBeUndefined();
  });
});

describe('shortId', () => {
  it('is the first eight characters', () => {
    expect(shortId('0b4e3c0e-8f5c-4a8e-9f0a-1c2d3e4f5a6b')).toBe('0b4e3c0e');
  });
});

describe('approval policies', () => {
  const vote = (decidedBy: string, decision = 'approved') => ({ decidedBy, decision });

  it('shows the quorum progress of a request that needs several approvals only', () => {
    expect(quorumProgress({ requiredApprovals: 1, approvals: [vote('ann')] })).toBeUndefined();
    expect(quorumProgress({ requiredApprovals: 2, approvals: [] })).toBe('0 of 2 approvals');
    expect(quorumProgress({ requiredApprovals: 3, approvals: [vote('ann'), vote('bob')] })).toBe(
      '2 of 3 approvals',
    );
  });

  it('counts each approver once and rejections not at all', () => {
    const request = {
      requiredApprovals: 3,
      approvals: [vote('ann'), vote('ann'), vote('bob', 'rejected'), vote('cy')],
    };
    expect(approverNames(request)).toEqual(['ann', 'cy']);
    expect(hasApproved(request, 'ann')).toBe(true);
    expect(hasApproved(request, 'bob')).toBe(false);
  });

  it('sends a trimmed assignee filter, none when blank', () => {
    expect(assigneeFilter('  Rita Reviewer ')).toBe('Rita Reviewer');
    expect(assigneeFilter('   ')).toBeUndefined();
    expect(assigneeFilter(undefined)).toBeUndefined();
    expect(assigneeFilter('x'.repeat(250))).toHaveLength(MAX_ASSIGNEE_LENGTH);
  });

  it('says what the last timeout does', () => {
    expect(onTimeoutText('reject')).toBe('then it is rejected');
    expect(onTimeoutText('approve')).toBe('then it is approved');
    expect(onTimeoutText('fail')).toBe('then the run fails');
    expect(onTimeoutText(null)).toBeUndefined();
  });
});
