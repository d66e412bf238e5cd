import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import type { ApprovalRequest } from './approvals-api';
import type { DecisionKind } from './DecideDialog';
import { useCan } from '../../session';
import { approverNames, hasApproved, onTimeoutText, quorumProgress } from './queue';

/**
 * The selected request: its facts (assignees, quorum progress with who approved, expiry, escalation),
 * the full content under review and the decision buttons (only while it is undecided; a request
 * decided meanwhile says by whom and offers the next one). A request that needs several approvals
 * cannot be edited, and a reviewer who approved it already cannot approve it again.
 */
export function RequestDetail(props: {
  request: ApprovalRequest;
  shortcuts: boolean;
  reviewerName: string;
  onDecide: (kind: DecisionKind) => void;
  onNext?: () => void;
}) {
  const { request } = props;
  const decided = request.decision !== null;
  // Without approvals:decide the reviewer reads the request but has nothing to press.
  const decides = useCan('approvals:decide');
  const progress = quorumProgress(request);
  const approvedByMe = hasApproved(request, props.reviewerName);
  const editable = request.requiredApprovals <= 1;
  const key = (k: string) => (props.shortcuts ? <kbd class="approval-key-hint">{k}</kbd> : null);
  return (
    <>
      <h2 id="approval-detail-title" class="approval-detail-title" tabIndex={-1}>
        {request.stepName}
      </h2>
      {request.prompt ? (
        <p class="approval-detail-prompt">{request.prompt}</p>
      ) : (
        <p class="muted">This step has no prompt.</p>
      )}
      {decided && (
        <div class="notice approval-conflict" role="status">
          <p>
            <strong>
              Already decided: {request.decision} by {request.decidedBy ?? 'someone'}{' '}
            </strong>
            <RelativeTime iso={request.decidedAt} />.
          </p>
          {props.onNext && (
            <button type="button" class="button" onClick={props.onNext}>
              Go to the next waiting request
            </button>
          )}
        </div>
      )}
      {!decided && !decides && (
        <p class="hint scope-hint">
          Deciding needs the scope <code>approvals:decide</code>, which the key you signed in with
          lacks.
        </p>
      )}
      {!decided && approvedByMe && (
        <p class="notice approval-voted" role="status">
          You approved this request; it waits for{' '}
          {progress ? `more approvals (${progress})` : 'another reviewer'}.
        </p>
      )}
      {!decided && decides && (
        <div class="toolbar approval-actions">
          <button
            type="button"
            class="button primary"
            aria-keyshortcuts={props.shortcuts ? 'a' : undefined}
            disabled={approvedByMe}
            onClick={() => props.onDecide('approve')}
          >
            Approve… {key('a')}
          </button>
          <button
            type="button"
            class="button"
            aria-keyshortcuts={props.shortcuts ? 'r' : undefined}
            onClick={() => props.onDecide('reject')}
          >
            Reject… {key('r')}
          </button>
          {editable && (
            <button
              type="button"
              class="button"
              aria-keyshortcuts={props.shortcuts ? 'e' : undefined}
              onClick={() => props.onDecide('edit')}
            >
              Edit and approve… {key('e')}
            </button>
          )}
        </div>
      )}
      {!decided && decides && !editable && (
        <p class="hint">
          It needs {request.requiredApprovals} approvals, so it cannot be edited: reject it with a
          comment to have the content changed.
        </p>
      )}
      <dl class="approval-facts">
        <dt>Run</dt>
        <dd>
          <a href={`/console/runs/${request.workflowRunId}`} class="mono">
            {request.workflowRunId}
          </a>
        </dd>
        <dt>Requested</dt>
        <dd>
          <RelativeTime iso={request.createdAt} />
        </dd>
        <dt>Content key</dt>
        <dd>
          <code>{request.contentKey}</code>
        </dd>
        <dt>Assigned to</dt>
        <dd>
          {request.assignees.length > 0 ? request.assignees.join(', ') : 'Anyone'}
          {request.escalatedFrom && (
            <>
              {' '}
              <span class="badge status-waiting">Escalated</span>{' '}
              <span class="muted">
                from {request.escalatedFrom.join(', ')} <RelativeTime iso={request.escalatedAt} />
              </span>
            </>
          )}
        </dd>
        {progress && (
          <>
            <dt>Approvals</dt>
            <dd>
              {progress}
              {approverNames(request).length > 0 && (
                <ul class="approval-votes">
                  {request.approvals.map((vote) => (
                    <li key={`${vote.decidedBy}-${vote.decidedAt}`}>
                      <strong>{vote.decidedBy}</strong> {vote.decision}{' '}
                      <RelativeTime iso={vote.decidedAt} />
                      {vote.comment && <span class="approval-comment">: {vote.comment}</span>}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </>
        )}
        {request.expiresAt && !request.expiredAt && (
          <>
            <dt>Expires</dt>
            <dd>
              <RelativeTime iso={request.expiresAt} />
              {onTimeoutText(request.onTimeout) && <>, {onTimeoutText(request.onTimeout)}</>}
            </dd>
          </>
        )}
        {request.expiredAt && (
          <>
            <dt>Expired</dt>
            <dd>
              <RelativeTime iso={request.expiredAt} /> without a decision (on timeout:{' '}
              {request.onTimeout})
            </dd>
          </>
        )}
        {decided && (
          <>
            <dt>Decision</dt>
            <dd>
              <StatusBadge status={request.decision ?? ''} />
            </dd>
            {request.comment && (
              <>
                <dt>Comment</dt>
                <dd class="approval-comment">{request.comment}</dd>
              </>
            )}
          </>
        )}
      </dl>
      <h3>Content under review</h3>
      <JsonViewer value={request.content} label="Content under review" openDepth={4} />
      {request.editedContent && (
        <>
          <h3>Edited content</h3>
          <JsonViewer value={request.editedContent} label="Edited content" openDepth={4} />
        </>
      )}
    </>
  );
}
