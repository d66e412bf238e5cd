import { useEffect, useState } from 'preact/hooks';
import { useQueryState } from '../../hooks';
import { useSession } from '../../session';
import { DecidedTab } from './DecidedTab';
import { PendingTab } from './PendingTab';
import { assigneeFilter, MAX_ASSIGNEE_LENGTH } from './queue';
import './approvals.css';

/**
 * The approvals inbox: undecided requests across all runs, oldest first, decided by mouse or keyboard
 * (approve, reject with a comment, edit then approve), and the decided ones in a second tab. The tab,
 * the assignee filter and the selected request live in the URL (`?tab=decided`, `?assignee=<name>`,
 * `?id=<request>`), so every view is a deep link.
 */
export function ApprovalsPage() {
  const { query, set } = useQueryState();
  const tab = query.tab === 'decided' ? 'decided' : 'pending';
  const assignee = assigneeFilter(query.assignee);
  const [message, setMessage] = useState('');
  const withFilter = (base: string) =>
    assignee === undefined
      ? base
      : `${base}${base.includes('?') ? '&' : '?'}assignee=${encodeURIComponent(assignee)}`;
  return (
    <section class="approvals">
      <h1>Approvals</h1>
      <nav class="approval-tabs" aria-label="Approval requests">
        <a
          href={withFilter('/console/approvals')}
          aria-current={tab === 'pending' ? 'true' : undefined}
        >
          Pending
        </a>
        <a
          href={withFilter('/console/approvals?tab=decided')}
          aria-current={tab === 'decided' ? 'true' : undefined}
        >
          Decided
        </a>
      </nav>
      <AssigneeFilter
        assignee={assignee}
        onChange={(next) => {
          // Another filter, another queue: the selection starts afresh.
          set({ assignee: next, id: undefined });
          setMessage(
            next === undefined ? 'Showing requests for everyone.' : `Showing requests for ${next}.`,
          );
        }}
      />
      <p class="approval-status" role="status" aria-live="polite">
        {message}
      </p>
      {tab === 'pending' ? (
        <PendingTab
          key={assignee ?? ''}
          assignee={assignee}
          selectedId={query.id || undefined}
          onSelect={(id) => set({ id })}
          announce={setMessage}
        />
      ) : (
        <DecidedTab key={assignee ?? ''} assignee={assignee} />
      )}
    </section>
  );
}

/**
 * Whose requests are listed: anyone's, the signed-in reviewer's ("For me", the session's reviewer
 * name), or any name or group typed in. Requests name their assignees exactly as the definition does.
 */
function AssigneeFilter(props: {
  assignee: string | undefined;
  onChange: (assignee: string | undefined) => void;
}) {
  const { reviewerName } = useSession();
  const [text, setText] = useState(props.assignee ?? '');
  useEffect(() => setText(props.assignee ?? ''), [props.assignee]);
  const mine = props.assignee === reviewerName;
  return (
    <form
      class="toolbar approval-filter"
      role="search"
      aria-label="Filter by assignee"
      onSubmit={(event) => {
        event.preventDefault();
        props.onChange(assigneeFilter(text));
      }}
    >
      <div class="field">
        <label for="approval-assignee">Assigned to</label>
        <input
          id="approval-assignee"
          type="search"
          value={text}
          maxLength={MAX_ASSIGNEE_LENGTH}
          placeholder="Anyone"
          aria-describedby="approval-assignee-hint"
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </div>
      <button type="submit" class="button">
        Filter
      </button>
      <button
        type="button"
        class={mine ? 'button primary' : 'button'}
        aria-pressed={mine ? 'true' : 'false'}
        onClick={() => props.onChange(mine ? undefined : reviewerName)}
      >
        For me
      </button>
      <button
        type="button"
        class="button"
        disabled={props.assignee === undefined}
        onClick={() => props.onChange(undefined)}
      >
        Everyone
      </button>
      <p id="approval-assignee-hint" class="hint approval-filter-hint">
        A name or group exactly as the approval step lists it in <code>assignees</code>; "For me" is{' '}
        {reviewerName}.
      </p>
    </form>
  );
}
