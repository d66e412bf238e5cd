import type { ComponentChildren } from 'preact';
import { ApiError, errorMessage } from '../api';

/** What a list shows when it has nothing, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state" role="status">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-hint">{children}</div>}
    </div>
  );
}

/** An error with the API's own message and a way to try again. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
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
