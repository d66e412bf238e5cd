import { approvers, type ApprovalVote } from './approvals.repository';
import { requestPolicy, timeoutAction } from './approval.step';
import type { ApprovalStep } from '../steps/step-definition';

const step = (extra: Partial<ApprovalStep> = {}): ApprovalStep => ({
  type: 'approval',
  name: 'review',
  contentKey: 'draft',
  ...extra,
});

const vote = (decidedBy: string, decision: ApprovalVote['decision']): ApprovalVote => ({
  decidedBy,
  decision,
  decidedAt: '2026-01-01T00:00:00.000Z',
  comment: null,
});

describe('approval policy', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('makes a request without a policy for one approver, no assignees and no expiry', () => {
    expect(requestPolicy(step(), now)).toEqual({
      assignees: [],
      requiredApprovals: 1,
      expiresAt: null,
      onTimeout: null,
    });
  });

  it('expires a request timeoutMs after it is made, rejecting by default', () => {
    expect(requestPolicy(step({ assignees: ['ann'], timeoutMs: 60_000 }), now)).toEqual({
      assignees: ['ann'],
      requiredApprovals: 1,
      expiresAt: new Date(now + 60_000),
      onTimeout: 'reject',
    });
    expect(requestPolicy(step({ timeoutMs: 1, onTimeout: 'fail' }), now).onTimeout).toBe('fail');
  });

  it('escalates at the first timeout only, and only with escalateTo', () => {
    const escalating = step({ timeoutMs: 1, escalateTo: { assignees: ['boss'] } });
    expect(timeoutAction(escalating, { escalated_at: null })).toBe('escalate');
    expect(timeoutAction(escalating, { escalated_at: new Date(now) })).toBe('expire');
    expect(timeoutAction(step({ timeoutMs: 1 }), { escalated_at: null })).toBe('expire');
  });

  it('counts distinct approvers: the same decider once, rejections not at all', () => {
    expect(approvers([]).size).toBe(0);
    const votes = [vote('ann', 'approved'), vote('ann', 'approved'), vote('bob', 'rejected')];
    expect([...approvers(votes)]).toEqual(['ann']);
    expect(approvers([...votes, vote('cy', 'approved')]).size).toBe(2);
  });
});
