import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, unwrap } from '../api';
import { useInterval } from '../hooks';
import { can, homePath, PAGES } from '../scopes';
import { signOut, useSession } from '../session';

/** Pages that change approvals dispatch this so that the badge updates at once. */
export const APPROVALS_CHANGED = 'console:approvals-changed';

export function Layout({ children }: { children: ComponentChildren }) {
  const session = useSession();
  const location = useLocation();
  // Only the pages the key can read (README "Scopes"); a deep link to another says why it is closed.
  const nav = PAGES.filter((page) => can(session.scopes, page.scope));
  const pending = usePendingCount(can(session.scopes, 'approvals:read'));
  const [signingOut, setSigningOut] = useState(false);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={homePath(session.scopes)}>
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
          {nav.map((item) => {
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

/**
 * The number of undecided approval requests, refreshed every 15 s and whenever a page decides one;
 * never asked for by a key that cannot read approval requests.
 */
function usePendingCount(allowed: boolean): number | undefined {
  const [count, setCount] = useState<number>();
  const refresh = useCallback(() => {
    if (!allowed) return;
    unwrap(api.GET('/v1/approval-requests/count')).then(
      (data) => setCount(data.pending),
      () => undefined,
    );
  }, [allowed]);
  useEffect(() => {
    refresh();
    window.addEventListener(APPROVALS_CHANGED, refresh);
    return () => window.removeEventListener(APPROVALS_CHANGED, refresh);
  }, [refresh]);
  useInterval(refresh, allowed ? 15_000 : undefined);
  return count;
}
