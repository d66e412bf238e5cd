import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorMessage } from '../../api';
import { homePath } from '../../scopes';
import { safeNext, signIn, type Session } from '../../session';

/**
 * Sign-in with an API key and the reviewer's name. The key goes to the service once, which answers an
 * HttpOnly cookie: the page never stores it. `next` brings the user back to the page they were on.
 */
export function SignInPage({
  onSignedIn,
}: {
  onSignedIn: (session: Session, next: string) => void;
}) {
  const { query } = useLocation();
  const [apiKey, setApiKey] = useState('');
  const [reviewerName, setReviewerName] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="sign-in">
      <h1>Workflow console</h1>
      {query.expired && !error && (
        <p class="notice" role="status">
          Your session has ended. Sign in again to return to the page you were on.
        </p>
      )}
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          signIn(apiKey.trim(), reviewerName.trim()).then(
            (session) => onSignedIn(session, safeNext(query.next, homePath(session.scopes))),
            (err: unknown) => {
              setError(errorMessage(err));
              setBusy(false);
            },
          );
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="apiKey"
          type="password"
          autoComplete="off"
          required
          placeholder="svc_…"
          value={apiKey}
          onInput={(e) => setApiKey(e.currentTarget.value)}
          aria-describedby="api-key-hint"
        />
        <p id="api-key-hint" class="hint">
          A key of your workspace. It is kept in an HttpOnly cookie for this browser session only.
        </p>
        <label for="reviewer-name">Your name</label>
        <input
          id="reviewer-name"
          name="reviewerName"
          autoComplete="name"
          required
          maxLength={100}
          value={reviewerName}
          onInput={(e) => setReviewerName(e.currentTarget.value)}
          aria-describedby="reviewer-name-hint"
        />
        <p id="reviewer-name-hint" class="hint">
          Recorded as the decider of the approvals you decide.
        </p>
        {error && (
          <p class="error-state" role="alert">
            Sign-in failed: {error}
          </p>
        )}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
