import { useMemo, useState } from 'preact/hooks';
import { api, errorMessage, unwrap } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { useAsync } from '../../hooks';
import { SCOPE_LABELS, SCOPES, type Scope } from '../../scopes';
import { useCan, useSession } from '../../session';
import {
  grantableScopes,
  keyAction,
  keyNameProblem,
  orderKeys,
  scopesProblem,
  scopesSummary,
} from './key-rules';
import { SecretOnce } from './SecretOnce';
import './api-keys.css';

const SCOPE_COUNT = SCOPES.length;

interface Created {
  id: string;
  name: string;
  key: string;
}

/**
 * The workspace's API keys with their scopes: create one with scopes chosen among the session's own
 * (its key shown once), revoke others (never this session's, nor one with a scope the session lacks).
 */
export function ApiKeysPage(_props: { id?: string }) {
  const session = useSession();
  const writes = useCan('keys:write');
  const keys = useAsync(() => unwrap(api.GET('/v1/api-keys')), []);
  const ordered = useMemo(
    () => orderKeys(keys.data ?? [], session.keyId),
    [keys.data, session.keyId],
  );
  const [created, setCreated] = useState<Created>();
  const [revoking, setRevoking] = useState<{ id: string; name: string }>();
  const [busy, setBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<string>();
  const [message, setMessage] = useState<string>();

  return (
    <section class="api-keys-page">
      <h1>API keys</h1>
      <p class="muted">
        Keys give programs and this console access to the workspace{' '}
        <strong>{session.workspaceName}</strong>. A key is shown once, when it is created; the
        service keeps only its hash.
      </p>

      {created && (
        <SecretOnce
          id="new-api-key"
          title={`New key “${created.name}”`}
          label="The new API key"
          secret={created.key}
          warning="This is the only time the key is shown. Store it in your secret manager; if it is lost, create a new key and revoke this one."
          onDismiss={() => setCreated(undefined)}
        />
      )}

      {writes ? (
        <CreateKeyForm
          sessionScopes={session.scopes}
          onCreated={(key) => {
            setCreated(key);
            setMessage(undefined);
            keys.reload();
          }}
        />
      ) : (
        <p class="hint scope-hint">
          Creating and revoking keys needs the scope <code>keys:write</code>, which the key you
          signed in with lacks.
        </p>
      )}

      <h2>Keys</h2>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {keys.error !== undefined && !keys.loading ? (
        <ErrorState error={keys.error} onRetry={keys.reload} />
      ) : !keys.data ? (
        <Loading label="Loading keys…" />
      ) : ordered.length === 0 ? (
        <EmptyState title="No keys">Create one with the form above.</EmptyState>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="API keys table">
          <table aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {ordered.map((key) => {
                const action = keyAction(key, session);
                const summary = scopesSummary(key.scopes);
                return (
                  <tr key={key.id} data-key-id={key.id}>
                    <th scope="row" class="key-name">
                      {key.name}
                      {key.id === session.keyId && (
                        <span class="badge this-session">this session</span>
                      )}
                    </th>
                    <td>
                      {key.revokedAt ? (
                        <span class="badge status-cancelled">
                          revoked <RelativeTime iso={key.revokedAt} />
                        </span>
                      ) : (
                        <span class="badge status-completed">active</span>
                      )}
                    </td>
                    <td class="key-scopes">
                      {summary.all ? (
                        <span title="Every scope">All scopes</span>
                      ) : (
                        <ul class="scope-list" aria-label={`Scopes of ${key.name}`}>
                          {summary.scopes.map((scope) => (
                            <li key={scope} class="mono">
                              {scope}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>
                      <RelativeTime iso={key.createdAt} />
                    </td>
                    <td>
                      {key.lastUsedAt ? (
                        <RelativeTime iso={key.lastUsedAt} />
                      ) : (
                        <span class="muted">never</span>
                      )}
                    </td>
                    <td>
                      {action.canRevoke ? (
                        <button
                          type="button"
                          class="button"
                          aria-label={`Revoke ${key.name}`}
                          onClick={() => {
                            setRevokeError(undefined);
                            setRevoking({ id: key.id, name: key.name });
                          }}
                        >
                          Revoke
                        </button>
                      ) : action.reason === 'this-session' ? (
                        <span class="muted">In use by this session</span>
                      ) : action.reason === 'wider' ? (
                        <span class="muted">
                          Has <code>{action.scope}</code>, which your key lacks
                        </span>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke this API key?"
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onCancel={() => setRevoking(undefined)}
        onConfirm={() => {
          if (!revoking) return;
          setBusy(true);
          setRevokeError(undefined);
          unwrap(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: revoking.id } } }))
            .then(
              () => {
                setMessage(`The key “${revoking.name}” is revoked.`);
                setRevoking(undefined);
                keys.reload();
              },
              (err: unknown) => setRevokeError(errorMessage(err)),
            )
            .finally(() => setBusy(false));
        }}
      >
        <p>
          Requests with the key <strong class="key-name">{revoking?.name}</strong> are refused from
          now on. This cannot be undone.
        </p>
        {revokeError && (
          <p class="error-state" role="alert">
            {revokeError}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function CreateKeyForm({
  sessionScopes,
  onCreated,
}: {
  sessionScopes: readonly string[];
  onCreated: (key: Created) => void;
}) {
  const grantable = useMemo(() => grantableScopes(sessionScopes), [sessionScopes]);
  const [name, setName] = useState('');
  // Every scope the session may give, until the user unticks some (the API's default is every scope).
  const [chosen, setChosen] = useState<Scope[]>(grantable);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const problem = keyNameProblem(name);
  const showProblem = touched && problem !== undefined;
  const scopeProblem = scopesProblem(chosen);
  const showScopeProblem = touched && scopeProblem !== undefined;
  return (
    <form
      class="panel create-key"
      aria-labelledby="create-key-title"
      onSubmit={(event) => {
        event.preventDefault();
        setTouched(true);
        if (problem || scopeProblem) return;
        setBusy(true);
        setError(undefined);
        unwrap(api.POST('/v1/api-keys', { body: { name: name.trim(), scopes: chosen } }))
          .then(
            (key) => {
              onCreated({ id: key.id, name: key.name, key: key.key });
              setName('');
              setChosen(grantable);
              setTouched(false);
            },
            (err: unknown) => setError(errorMessage(err)),
          )
          .finally(() => setBusy(false));
      }}
    >
      <h2 id="create-key-title">Create a key</h2>
      <div class="field">
        <label for="new-key-name">Name</label>
        <input
          id="new-key-name"
          maxLength={100}
          value={name}
          aria-invalid={showProblem}
          aria-describedby="new-key-name-hint"
          onInput={(event) => setName(event.currentTarget.value)}
          onBlur={() => setTouched(true)}
        />
        <p id="new-key-name-hint" class={showProblem ? 'field-error' : 'hint'}>
          {showProblem ? problem : 'What the key is for, e.g. "ci-pipeline" (1-100 characters).'}
        </p>
      </div>
      <fieldset class="scope-choices" aria-describedby="new-key-scopes-hint">
        <legend>Scopes</legend>
        {grantable.map((scope) => (
          <label key={scope} class="checkbox">
            <input
              type="checkbox"
              checked={chosen.includes(scope)}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                setChosen((now) => grantable.filter((s) => (s === scope ? on : now.includes(s))));
              }}
            />
            <span class="mono">{scope}</span>
            <span class="muted">{SCOPE_LABELS[scope]}</span>
          </label>
        ))}
        <p id="new-key-scopes-hint" class={showScopeProblem ? 'field-error' : 'hint'}>
          {showScopeProblem
            ? scopeProblem
            : grantable.length === SCOPE_COUNT
              ? 'What the key may do; all by default.'
              : 'What the key may do: a key can give only the scopes it holds itself.'}
        </p>
      </fieldset>
      {error && (
        <p class="error-state" role="alert">
          The key was not created: {error}
        </p>
      )}
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}
