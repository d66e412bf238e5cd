import { useMemo, useState } from 'preact/hooks';
import { api, errorMessage, unwrap } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { useAsync } from '../../hooks';
import { useSession } from '../../session';
import { keyAction, keyNameProblem, orderKeys } from './key-rules';
import { SecretOnce } from './SecretOnce';
import './api-keys.css';

interface Created {
  id: string;
  name: string;
  key: string;
}

/** The workspace's API keys: create one (its key shown once), revoke others (never this session's). */
export function ApiKeysPage(_props: { id?: string }) {
  const session = useSession();
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

      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          setMessage(undefined);
          keys.reload();
        }}
      />

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
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {ordered.map((key) => {
                const action = keyAction(key, session.keyId);
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

function CreateKeyForm({ onCreated }: { onCreated: (key: Created) => void }) {
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const problem = keyNameProblem(name);
  const showProblem = touched && problem !== undefined;
  return (
    <form
      class="panel create-key"
      aria-labelledby="create-key-title"
      onSubmit={(event) => {
        event.preventDefault();
        setTouched(true);
        if (problem) return;
        setBusy(true);
        setError(undefined);
        unwrap(api.POST('/v1/api-keys', { body: { name: name.trim() } }))
          .then(
            (key) => {
              onCreated({ id: key.id, name: key.name, key: key.key });
              setName('');
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
