import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import type { ApprovalRequest } from './approvals-api';
import type { DecisionKind } from './DecideDialog';
import { useCan } from '../../session';

/**
 * The selected request: its facts, the full content under review and the decision buttons (only
 * while it is undecided; a request decided meanwhile says by whom and offers the next one).
 */
export function RequestDetail(props: {
  request: ApprovalRequest;
  shortcuts: boolean;
  onDecide: (kind: DecisionKind) => void;
  onNext?: () => void;
}) {
  const { request } = props;
  const decided = request.decision !== null;
  // Without approvals:decide the reviewer reads the request but has nothing to press.
  const decides = useCan('approvals:decide');
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
      {!decided && decides && (
        <div class="toolbar approval-actions">
          <button
            type="button"
            class="button primary"
            aria-keyshortcuts={props.shortcuts ? 'a' : undefined}
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
          <button
            type="button"
            class="button"
            aria-keyshortcuts={props.shortcuts ? 'e' : undefined}
            onClick={() => props.onDecide('edit')}
          >
            Edit and approve… {key('e')}
          </button>
        </div>
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
