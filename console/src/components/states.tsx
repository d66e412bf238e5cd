import type { ComponentChildren } from 'preact';
import { ApiError, errorMessage } from '../api';
import { missingScope } from '../scopes';

/** What a list shows when it has nothing, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state" role="status">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-hint">{children}</div>}
    </div>
  );
}

/**
 * What a page shows instead of its content when the signed-in key lacks the scope to read it: which
 * scope, and what to do (trying again would not help).
 */
export function NoAccess({ scope, what }: { scope: string; what?: string }) {
  return (
    <section class="no-access" aria-labelledby="no-access-title">
      <h1 id="no-access-title">Not available with this key</h1>
      <ScopeMessage scope={scope} what={what} />
    </section>
  );
}

function ScopeMessage({ scope, what }: { scope: string; what?: string }) {
  return (
    <div class="notice scope-notice" role="alert">
      <p>
        <strong>
          The API key you signed in with cannot {what ? `see ${what}` : 'do this'}: it lacks the
          scope <code>{scope}</code>.
        </strong>{' '}
        Ask someone who manages the workspace's keys for a key with that scope, then sign out and
        sign in with it.
      </p>
    </div>
  );
}

/**
 * An error with the API's own message and a way to try again; a refusal for a scope the key lacks
 * (403 `API key lacks scope …`) instead says which scope, without a retry that could only fail again.
 */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const scope = missingScope(error);
  if (scope !== undefined) return <ScopeMessage scope={scope} />;
  const status =
    error instanceof ApiError && error.status > 0 ? ` (${error.status} ${error.code})` : '';
  return (
    <div class="error-state" role="alert">
      <p>
        <strong>Something went wrong{status}.</strong> {errorMessage(error)}
      </p>
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}
