import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { onUnauthorized } from './api';
import { Layout } from './components/Layout';
import { Loading, NoAccess } from './components/states';
import { ApiKeysPage } from './pages/api-keys/ApiKeysPage';
import { ApprovalsPage } from './pages/approvals/ApprovalsPage';
import { CostsPage } from './pages/costs/CostsPage';
import { DefinitionPage } from './pages/definitions/DefinitionPage';
import { DefinitionsPage } from './pages/definitions/DefinitionsPage';
import { RunPage } from './pages/run/RunPage';
import { RunsPage } from './pages/runs/RunsPage';
import { SignInPage } from './pages/sign-in/SignInPage';
import { WebhookPage } from './pages/webhooks/WebhookPage';
import { WebhooksPage } from './pages/webhooks/WebhooksPage';
import { homePath, type Scope } from './scopes';
import { loadSession, SessionProvider, useCan, type Session } from './session';

export function App() {
  return (
    <LocationProvider scope="/console">
      <Shell />
    </LocationProvider>
  );
}

/**
 * Signed in: the layout and the pages. Not (no cookie, expired, revoked key, or any later 401): the
 * sign-in page, with the page the user was on kept in `next` so that nothing is lost.
 */
function Shell() {
  const location = useLocation();
  // null: not known yet; undefined: no session.
  const [session, setSession] = useState<Session | undefined | null>(null);
  const [loadError, setLoadError] = useState<string>();
  const onSignIn = location.path === '/console/sign-in';

  useEffect(() => {
    loadSession().then(setSession, (err: unknown) =>
      setLoadError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  useEffect(() => onUnauthorized(() => setSession(undefined)), []);
  useEffect(() => {
    if (session === undefined && !onSignIn) {
      location.route(`/console/sign-in?expired=1&next=${encodeURIComponent(location.url)}`, true);
    } else if (
      session &&
      (onSignIn || location.path === '/console' || location.path === '/console/')
    ) {
      location.route(homePath(session.scopes), true);
    }
  }, [session, onSignIn, location]);

  if (onSignIn && !session) {
    return (
      <SignInPage
        onSignedIn={(signedIn, next) => {
          setSession(signedIn);
          location.route(next, true);
        }}
      />
    );
  }
  if (loadError) {
    return (
      <main id="main" class="sign-in">
        <p class="error-state" role="alert">
          The console could not reach the service: {loadError}. Reload the page to try again.
        </p>
      </main>
    );
  }
  if (!session) return <Loading />;
  return (
    <SessionProvider session={session}>
      <Layout>
        <Router>
          <Route path="/console/runs" component={Runs} />
          <Route path="/console/runs/:id" component={Run} />
          <Route path="/console/approvals" component={Approvals} />
          <Route path="/console/costs" component={Costs} />
          <Route path="/console/definitions" component={Definitions} />
          <Route path="/console/definitions/:id" component={Definition} />
          <Route path="/console/webhooks" component={Webhooks} />
          <Route path="/console/webhooks/:id" component={Webhook} />
          <Route path="/console/api-keys" component={ApiKeys} />
          <Route default component={NotFound} />
        </Router>
      </Layout>
    </SessionProvider>
  );
}

/**
 * A page the signed-in key can read, or instead of it a message naming the scope it lacks (a deep
 * link, or a page the navigation does not offer to this key).
 */
function scoped<P extends object>(
  scope: Scope,
  what: string,
  Page: ComponentType<P>,
): ComponentType<P> {
  return function ScopedPage(props: P) {
    return useCan(scope) ? <Page {...props} /> : <NoAccess scope={scope} what={what} />;
  };
}

const Runs = scoped('runs:read', 'runs', RunsPage);
const Run = scoped('runs:read', 'runs', RunPage);
const Approvals = scoped('approvals:read', 'approval requests', ApprovalsPage);
const Costs = scoped('costs:read', 'costs', CostsPage);
const Definitions = scoped('definitions:read', 'workflow definitions', DefinitionsPage);
const Definition = scoped('definitions:read', 'workflow definitions', DefinitionPage);
const Webhooks = scoped('webhooks:read', 'webhooks', WebhooksPage);
const Webhook = scoped('webhooks:read', 'webhooks', WebhookPage);
const ApiKeys = scoped('keys:read', 'API keys', ApiKeysPage);

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        This console page does not exist. <a href="/console/runs">Go to the runs</a>.
      </p>
    </section>
  );
}
