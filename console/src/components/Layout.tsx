import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, unwrap } from '../api';
import { useInterval } from '../hooks';
import { signOut, useSession } from '../session';

const NAV = [
  { href: '/console/runs', label: 'Runs' },
  { href: '/console/approvals', label: 'Approvals' },
  { href: '/console/costs', label: 'Costs' },
  { href: '/console/definitions', label: 'Definitions' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/api-keys', label: 'API keys' },
];

/** Pages that change approvals dispatch this so that the badge updates at once. */
export const APPROVALS_CHANGED = 'console:approvals-changed';

export function Layout({ children }: { children: ComponentChildren }) {
  const session = useSession();
  const location = useLocation();
  const pending = usePendingCount();
  const [signingOut, setSigningOut] = useState(false);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/console/runs">
          Workflow console
        </a>
        <span class="workspace" title={`Workspace ${session.workspaceId}`}>
          {session.workspaceName}
        </span>
        <span class="reviewer">
          Signed in as <strong>{session.reviewerName}</strong>
        </span>
        <button
          type="button"
          class="button"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void signOut().finally(() => window.location.assign('/console/sign-in'));
          }}
        >
          Sign out
        </button>
      </header>
      <nav class="sidenav" aria-label="Console">
        <ul>
          {NAV.map((item) => {
            const current =
              location.path === item.href || location.path.startsWith(`${item.href}/`);
            return (
              <li key={item.href}>
                <a href={item.href} aria-current={current ? 'page' : undefined}>
                  {item.label}
                  {item.href === '/console/approvals' && pending !== undefined && pending > 0 && (
                    <span class="count-badge" aria-label={`${pending} pending`}>
                      {pending > 999 ? '999+' : pending}
                    </span>
                  )}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1} class="content">
        {children}
      </main>
    </div>
  );
}

/** The number of undecided approval requests, refreshed every 15 s and whenever a page decides one. */
function usePendingCount(): number | undefined {
  const [count, setCount] = useState<number>();
  const refresh = useCallback(() => {
    unwrap(api.GET('/v1/approval-requests/count')).then(
      (data) => setCount(data.pending),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    refresh();
    window.addEventListener(APPROVALS_CHANGED, refresh);
    return () => window.removeEventListener(APPROVALS_CHANGED, refresh);
  }, [refresh]);
  useInterval(refresh, 15_000);
  return count;
}
