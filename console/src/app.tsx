import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { onUnauthorized } from './api';
import { Layout } from './components/Layout';
import { Loading } from './components/states';
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
import { loadSession, SessionProvider, type Session } from './session';

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
      location.route('/console/runs', true);
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
          <Route path="/console/runs" component={RunsPage} />
          <Route path="/console/runs/:id" component={RunPage} />
          <Route path="/console/approvals" component={ApprovalsPage} />
          <Route path="/console/costs" component={CostsPage} />
          <Route path="/console/definitions" component={DefinitionsPage} />
          <Route path="/console/definitions/:id" component={DefinitionPage} />
          <Route path="/console/webhooks" component={WebhooksPage} />
          <Route path="/console/webhooks/:id" component={WebhookPage} />
          <Route path="/console/api-keys" component={ApiKeysPage} />
          <Route default component={NotFound} />
        </Router>
      </Layout>
    </SessionProvider>
  );
}

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
