import { useState } from 'preact/hooks';
import { useQueryState } from '../../hooks';
import { DecidedTab } from './DecidedTab';
import { PendingTab } from './PendingTab';
import './approvals.css';

/**
 * The approvals inbox: undecided requests across all runs, oldest first, decided by mouse or keyboard
 * (approve, reject with a comment, edit then approve), and the decided ones in a second tab. The tab and
 * the selected request live in the URL (`?tab=decided`, `?id=<request>`), so every view is a deep link.
 */
export function ApprovalsPage() {
  const { query, set } = useQueryState();
  const tab = query.tab === 'decided' ? 'decided' : 'pending';
  const [message, setMessage] = useState('');
  return (
    <section class="approvals">
      <h1>Approvals</h1>
      <nav class="approval-tabs" aria-label="Approval requests">
        <a href="/console/approvals" aria-current={tab === 'pending' ? 'true' : undefined}>
          Pending
        </a>
        <a
          href="/console/approvals?tab=decided"
          aria-current={tab === 'decided' ? 'true' : undefined}
        >
          Decided
        </a>
      </nav>
      <p class="approval-status" role="status" aria-live="polite">
        {message}
      </p>
      {tab === 'pending' ? (
        <PendingTab
          selectedId={query.id || undefined}
          onSelect={(id) => set({ id })}
          announce={setMessage}
        />
      ) : (
        <DecidedTab />
      )}
    </section>
  );
}
