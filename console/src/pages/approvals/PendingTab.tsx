import { useEffect, useRef, useState } from 'preact/hooks';
import { RelativeTime } from '../../components/RelativeTime';
import { APPROVALS_CHANGED } from '../../components/Layout';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { errorMessage } from '../../api';
import { useAsync, useInterval } from '../../hooks';
import { useSession } from '../../session';
import {
  getRequest,
  loadPending,
  type ApprovalDecision,
  type ApprovalRequest,
} from './approvals-api';
import { DecideDialog, type DecisionKind } from './DecideDialog';
import {
  shortcutFor,
  shortcutsEnabled,
  SHORTCUTS_STORAGE_KEY,
  storedShortcutsValue,
} from './keyboard';
import {
  approverNames,
  contentPreview,
  hasApproved,
  neighbour,
  quorumProgress,
  selectionAfterDecision,
  shortId,
} from './queue';
import { RequestDetail } from './RequestDetail';
import { ShortcutsPanel } from './ShortcutsPanel';
import { useCan } from '../../session';

/** How often the queue is read again while the page is visible. */
const REFRESH_MS = 10_000;

const PAST: Record<NonNullable<ApprovalDecision['decision']>, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  edited: 'Approved with edits',
};

function readShortcutsPreference(): boolean {
  try {
    return shortcutsEnabled(window.localStorage.getItem(SHORTCUTS_STORAGE_KEY));
  } catch {
    return true;
  }
}

/**
 * The pending queue (of one assignee, when filtered), oldest first, with the selected request beside it
 * (the selection is in the URL) and the decision dialogs. After a decision the next request is
 * selected, so that the keyboard alone clears a queue; an approval short of a quorum keeps the request
 * in the queue with its progress.
 */
export function PendingTab(props: {
  assignee: string | undefined;
  selectedId: string | undefined;
  onSelect: (id: string | undefined) => void;
  announce: (message: string) => void;
}) {
  const { selectedId, onSelect, announce, assignee } = props;
  const { reviewerName } = useSession();
  const queue = useAsync(() => loadPending(assignee), [assignee]);
  useInterval(queue.reload, REFRESH_MS);
  // Requests decided here leave the list at once, before the next read confirms it.
  const [decidedHere, setDecidedHere] = useState<ReadonlySet<string>>(new Set());
  // Approvals recorded here toward a quorum show at once, before the next read confirms them.
  const [votedHere, setVotedHere] = useState<ReadonlyMap<string, ApprovalDecision['approvals']>>(
    new Map(),
  );
  const [dialog, setDialog] = useState<{ kind: DecisionKind; request: ApprovalRequest }>();
  const [shortcuts, setShortcuts] = useState(readShortcutsPreference);

  const items = (queue.data?.items ?? [])
    .filter((item) => !decidedHere.has(item.id))
    .map((item) => {
      const voted = votedHere.get(item.id);
      return voted && voted.length > item.approvals.length ? { ...item, approvals: voted } : item;
    });
  const ids = items.map((item) => item.id);
  const selected = items.find((item) => item.id === selectedId);

  // Nothing selected: the oldest request is (so that `a` acts at once on a fresh page).
  const firstId = ids[0];
  useEffect(() => {
    if (selectedId === undefined && firstId !== undefined) onSelect(firstId);
  }, [selectedId, firstId]);

  // A selection that is not in the queue: decided meanwhile, or a deep link to a decided request.
  const outside = queue.data !== undefined && selectedId !== undefined && !selected;
  const other = useAsync(
    () => (outside ? getRequest(selectedId) : Promise.resolve(undefined)),
    [outside, selectedId],
  );

  /** `id` left the queue (decided here, or found decided elsewhere): on to the next request. */
  const left = (id: string) => {
    setDecidedHere((set) => new Set(set).add(id));
    setDialog(undefined);
    onSelect(selectionAfterDecision(ids, id));
    window.dispatchEvent(new Event(APPROVALS_CHANGED));
    queue.reload();
  };

  const moveBy = (step: 1 | -1) => {
    const id = neighbour(ids, selectedId, step);
    if (id === undefined) return;
    onSelect(id);
    document.getElementById(`approval-${id}`)?.scrollIntoView({ block: 'nearest' });
  };
  const decides = useCan('approvals:decide');
  const open = (kind: DecisionKind) => {
    if (!selected || !decides) return;
    const refusal = decisionRefusal(selected, kind, reviewerName);
    if (refusal) announce(refusal);
    else setDialog({ kind, request: selected });
  };

  /** An approval short of the quorum: the request stays, with its progress. */
  const voted = (decision: ApprovalDecision) => {
    setVotedHere((map) => new Map(map).set(decision.id, decision.approvals));
    setDialog(undefined);
    announce(
      `Approval recorded: ${quorumProgress(decision) ?? ''} for ${decision.stepName}; it waits ` +
        'for more.',
    );
    queue.reload();
  };

  // The latest state for the one keydown listener of the page.
  const latest = useRef({ shortcuts, dialogOpen: false, moveBy, open });
  latest.current = { shortcuts, dialogOpen: dialog !== undefined, moveBy, open };
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target instanceof HTMLElement ? event.target : null;
      const state = latest.current;
      const action = shortcutFor(
        event,
        target && {
          tagName: target.tagName,
          type: target instanceof HTMLInputElement ? target.type : undefined,
          isContentEditable: target.isContentEditable,
        },
        {
          enabled: state.shortcuts,
          dialogOpen: state.dialogOpen || document.querySelector('dialog[open]') !== null,
        },
      );
      if (action === undefined) return;
      event.preventDefault();
      switch (action) {
        case 'next':
          state.moveBy(1);
          break;
        case 'previous':
          state.moveBy(-1);
          break;
        case 'approve':
        case 'reject':
        case 'edit':
          state.open(action);
          break;
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  const toggleShortcuts = (enabled: boolean) => {
    setShortcuts(enabled);
    try {
      window.localStorage.setItem(SHORTCUTS_STORAGE_KEY, storedShortcutsValue(enabled));
    } catch {
      // Storage refused (a private window): the switch holds for this page only.
    }
    announce(`Keyboard shortcuts ${enabled ? 'on' : 'off'}.`);
  };

  if (queue.data === undefined) {
    if (queue.error) return <ErrorState error={queue.error} onRetry={queue.reload} />;
    return <Loading label="Loading the approval queue…" />;
  }

  const detail = selected ?? other.data;
  return (
    <>
      {queue.error !== undefined && (
        <p class="notice" role="alert">
          The queue could not be refreshed ({errorMessage(queue.error)}); it shows the last list and
          tries again in a few seconds.
        </p>
      )}
      <div class="approvals-layout">
        <section class="approvals-queue" aria-labelledby="approval-queue-title">
          <h2 id="approval-queue-title">
            Waiting for a decision ({items.length}
            {queue.data.more ? '+' : ''})
          </h2>
          <p class="hint">
            {assignee === undefined ? 'Oldest first' : `For ${assignee}, oldest first`}; refreshed
            every 10 seconds.
          </p>
          {items.length === 0 && assignee !== undefined ? (
            <EmptyState title={`No approvals waiting for ${assignee}`}>
              Requests list their assignees when the approval step names them. Choose{' '}
              <strong>Everyone</strong> to see every waiting request.
            </EmptyState>
          ) : items.length === 0 ? (
            <EmptyState title="No approvals waiting">
              Runs pause here when they reach an <code>approval</code> step; new requests appear
              within 10 seconds. Past decisions are in the{' '}
              <a href="/console/approvals?tab=decided">Decided</a> tab.
            </EmptyState>
          ) : (
            <ol class="approval-list">
              {items.map((item) => (
                <QueueItem
                  key={item.id}
                  item={item}
                  selected={item.id === selectedId}
                  onSelect={() => {
                    onSelect(item.id);
                    revealDetail();
                  }}
                />
              ))}
            </ol>
          )}
          {queue.data.more && (
            <p class="hint">
              Only the oldest {items.length} requests are shown; decide some to see the rest.
            </p>
          )}
        </section>
        <section
          id="approval-detail"
          class="panel approval-detail"
          aria-labelledby={detail ? 'approval-detail-title' : undefined}
          aria-label={detail ? undefined : 'Selected request'}
        >
          {detail ? (
            <RequestDetail
              request={detail}
              shortcuts={shortcuts}
              reviewerName={reviewerName}
              onDecide={(kind) => setDialog({ kind, request: detail })}
              onNext={
                selected || ids.length === 0
                  ? undefined
                  : () => onSelect(selectionAfterDecision(ids, detail.id))
              }
            />
          ) : outside && other.error !== undefined ? (
            <ErrorState error={other.error} onRetry={other.reload} />
          ) : outside ? (
            <Loading label="Loading the request…" />
          ) : (
            <p class="muted">Select a request to review it.</p>
          )}
        </section>
      </div>
      <ShortcutsPanel enabled={shortcuts} onToggle={toggleShortcuts} />
      {dialog && (
        <DecideDialog
          key={`${dialog.kind}-${dialog.request.id}`}
          kind={dialog.kind}
          request={dialog.request}
          onCancel={() => setDialog(undefined)}
          onDecided={(decision) => {
            if (decision.decision === null) {
              voted(decision);
              return;
            }
            announce(`${PAST[decision.decision]}: ${decision.stepName}.`);
            left(decision.id);
          }}
          onMoveOn={(id) => {
            announce('That request was already decided; it left the queue.');
            left(id);
          }}
        />
      )}
    </>
  );
}

/**
 * Brings the selected request's pane into view when its top is off screen (below the list on a phone,
 * or above after scrolling down a long queue).
 */
function revealDetail(): void {
  const pane = document.getElementById('approval-detail');
  if (!pane) return;
  const top = pane.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight * 0.75) pane.scrollIntoView({ block: 'start' });
}

/**
 * Why `kind` cannot be chosen for `request` (the service would refuse it), or undefined: an edit of a
 * request that needs several approvals, or a second approval by the same reviewer.
 */
function decisionRefusal(
  request: ApprovalRequest,
  kind: DecisionKind,
  reviewerName: string,
): string | undefined {
  if (kind === 'edit' && request.requiredApprovals > 1) {
    return `This request needs ${request.requiredApprovals} approvals, so it cannot be edited: approve or reject it.`;
  }
  if ((kind === 'approve' || kind === 'edit') && hasApproved(request, reviewerName)) {
    return 'You have approved this request already; it waits for another reviewer.';
  }
  return undefined;
}

/** Who the request is for, its quorum progress, when it expires and whether it was escalated. */
export function PolicySummary({ item }: { item: ApprovalRequest }) {
  const progress = quorumProgress(item);
  const approvers = approverNames(item);
  if (item.assignees.length === 0 && !progress && !item.expiresAt && !item.escalatedAt) {
    return null;
  }
  return (
    <p class="approval-policy">
      {item.assignees.length > 0 && (
        <span class="approval-assignees">For {item.assignees.join(', ')}</span>
      )}
      {progress && (
        <span class="approval-progress">
          <span class="badge status-pending">{progress}</span>
          {approvers.length > 0 && <> approved by {approvers.join(', ')}</>}
        </span>
      )}
      {item.escalatedAt && <span class="badge status-waiting">Escalated</span>}
      {item.expiresAt && (
        <span class="approval-expiry">
          Expires <RelativeTime iso={item.expiresAt} />
        </span>
      )}
    </p>
  );
}

function QueueItem(props: { item: ApprovalRequest; selected: boolean; onSelect: () => void }) {
  const { item } = props;
  return (
    <li
      id={`approval-${item.id}`}
      class={props.selected ? 'approval-item approval-item-selected' : 'approval-item'}
    >
      <button
        type="button"
        class="approval-select"
        aria-current={props.selected ? 'true' : undefined}
        onClick={props.onSelect}
      >
        <span class="approval-step">{item.stepName}</span>
        <span class="approval-prompt">{item.prompt || 'No prompt'}</span>
      </button>
      <p class="approval-preview mono">{contentPreview(item.content)}</p>
      <PolicySummary item={item} />
      <p class="approval-meta">
        Requested <RelativeTime iso={item.createdAt} /> ·{' '}
        <a href={`/console/runs/${item.workflowRunId}`}>Run {shortId(item.workflowRunId)}</a>
      </p>
    </li>
  );
}
