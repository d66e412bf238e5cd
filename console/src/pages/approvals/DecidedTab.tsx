import { useEffect, useState } from 'preact/hooks';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { StatusBadge } from '../../components/StatusBadge';
import { loadDecided, type ApprovalRequest, type ListQuery } from './approvals-api';
import { shortId } from './queue';

interface Loaded {
  items: ApprovalRequest[];
  next: ListQuery | undefined;
}

/**
 * Decided requests (of one assignee, when filtered), most recent requests first: decision, decider,
 * time, step and run; older ones on demand. A decision a timeout made is marked as such.
 */
export function DecidedTab(props: { assignee: string | undefined }) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    setError(undefined);
    loadDecided({ pending: 'false', assignee: props.assignee }).then(
      (part) => current && setLoaded(part),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [attempt, props.assignee]);

  const loadOlder = () => {
    if (!loaded?.next || busy) return;
    setBusy(true);
    loadDecided(loaded.next).then(
      (part) => {
        const seen = new Set(loaded.items.map((item) => item.id));
        setLoaded({
          items: [...loaded.items, ...part.items.filter((item) => !seen.has(item.id))],
          next: part.next,
        });
        setError(undefined);
        setBusy(false);
      },
      (err: unknown) => {
        setError(err);
        setBusy(false);
      },
    );
  };

  if (!loaded) {
    if (error) return <ErrorState error={error} onRetry={() => setAttempt((n) => n + 1)} />;
    return <Loading label="Loading the decisions…" />;
  }
  if (loaded.items.length === 0 && props.assignee !== undefined) {
    return (
      <EmptyState title={`No decisions for ${props.assignee} yet`}>
        Choose <strong>Everyone</strong> to see every decided request.
      </EmptyState>
    );
  }
  if (loaded.items.length === 0) {
    return (
      <EmptyState title="No decisions yet">
        Requests appear here once someone approves, rejects or edits them in the{' '}
        <a href="/console/approvals">Pending</a> tab or through the API.
      </EmptyState>
    );
  }
  return (
    <section aria-labelledby="approval-decided-title">
      <h2 id="approval-decided-title">Decided requests</h2>
      <p class="hint">Most recent requests first.</p>
      <div class="table-wrap">
        <table class="approval-decided">
          <thead>
            <tr>
              <th scope="col">Decision</th>
              <th scope="col">Step</th>
              <th scope="col">Decided by</th>
              <th scope="col">Decided</th>
              <th scope="col">Comment</th>
              <th scope="col">Run</th>
            </tr>
          </thead>
          <tbody>
            {loaded.items.map((item) => (
              <tr key={item.id}>
                <td>
                  <StatusBadge status={item.decision ?? 'pending'} />
                </td>
                <td>
                  <span class="approval-step">{item.stepName}</span>
                  {item.prompt && <span class="approval-prompt muted">{item.prompt}</span>}
                </td>
                <td>
                  {item.decidedBy ?? '–'}
                  {item.expiredAt && <span class="muted"> (expired)</span>}
                </td>
                <td>
                  <RelativeTime iso={item.decidedAt} />
                </td>
                <td class="approval-comment">{item.comment ?? <span class="muted">–</span>}</td>
                <td>
                  <a href={`/console/runs/${item.workflowRunId}`}>
                    Run {shortId(item.workflowRunId)}
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error !== undefined && <ErrorState error={error} onRetry={loadOlder} />}
      {loaded.next && (
        <p>
          <button type="button" class="button" disabled={busy} onClick={loadOlder}>
            {busy ? 'Loading…' : 'Show older decisions'}
          </button>
        </p>
      )}
    </section>
  );
}
