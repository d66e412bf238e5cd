import { useState } from 'preact/hooks';
import { api, errorMessage, unwrap } from '../../api';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { useAsync } from '../../hooks';
import { useCan } from '../../session';
import { SecretOnce } from '../api-keys/SecretOnce';
import { WEBHOOK_EVENTS, webhookFormProblems, type WebhookEvent } from './webhook-rules';
import './webhooks.css';

interface Created {
  id: string;
  url: string;
  secret: string;
}

/** The workspace's webhooks, and a form to register one (its signing secret shown once). */
export function WebhooksPage(_props: { id?: string }) {
  const hooks = useAsync(() => unwrap(api.GET('/v1/webhooks')), []);
  const [created, setCreated] = useState<Created>();
  const writes = useCan('webhooks:write');

  return (
    <section class="webhooks-page">
      <h1>Webhooks</h1>
      {created && (
        <SecretOnce
          id="new-webhook-secret"
          title="Webhook registered: its signing secret"
          label="Signing secret"
          secret={created.secret}
          warning="The secret is shown only now. Your receiver needs it to check the X-Webhook-Signature and webhook-signature headers; if it is lost, delete the webhook and register it again."
          onDismiss={() => setCreated(undefined)}
        />
      )}
      {created && (
        <p>
          <a href={`/console/webhooks/${encodeURIComponent(created.id)}`}>
            Open the new webhook's delivery log
          </a>
        </p>
      )}

      <h2>Registered webhooks</h2>
      {hooks.error !== undefined && !hooks.loading ? (
        <ErrorState error={hooks.error} onRetry={hooks.reload} />
      ) : !hooks.data ? (
        <Loading label="Loading webhooks…" />
      ) : hooks.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          {writes
            ? 'Register one with the form below to be told when runs finish or approvals are requested.'
            : 'None is registered in this workspace.'}
        </EmptyState>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Webhooks table">
          <table aria-label="Webhooks">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Active</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {hooks.data.map((hook) => (
                <tr key={hook.id}>
                  <th scope="row" class="webhook-url">
                    <a href={`/console/webhooks/${encodeURIComponent(hook.id)}`}>{hook.url}</a>
                  </th>
                  <td>
                    <ul class="event-list">
                      {hook.events.map((event) => (
                        <li key={event} class="mono">
                          {event}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    {hook.isActive ? (
                      <span class="badge status-completed">active</span>
                    ) : (
                      <span class="badge status-cancelled">inactive</span>
                    )}
                  </td>
                  <td>
                    <RelativeTime iso={hook.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {writes ? (
        <CreateWebhookForm
          onCreated={(hook) => {
            setCreated(hook);
            hooks.reload();
          }}
        />
      ) : (
        <p class="hint scope-hint">
          Registering a webhook needs the scope <code>webhooks:write</code>, which the key you
          signed in with lacks.
        </p>
      )}
    </section>
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (hook: Created) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const problems = webhookFormProblems(url, events);
  const show = submitted ? problems : {};
  return (
    <form
      class="panel create-webhook"
      aria-labelledby="create-webhook-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setSubmitted(true);
        if (problems.url || problems.events) return;
        setBusy(true);
        setError(undefined);
        unwrap(api.POST('/v1/webhooks', { body: { url: url.trim(), events } }))
          .then(
            (hook) => {
              onCreated({ id: hook.id, url: hook.url, secret: hook.secret });
              setUrl('');
              setEvents([]);
              setSubmitted(false);
            },
            (err: unknown) => setError(errorMessage(err)),
          )
          .finally(() => setBusy(false));
      }}
    >
      <h2 id="create-webhook-title">Register a webhook</h2>
      <div class="field">
        <label for="webhook-url">HTTPS URL</label>
        <input
          id="webhook-url"
          type="url"
          inputMode="url"
          placeholder="https://example.com/hooks/workflows"
          value={url}
          aria-invalid={show.url !== undefined}
          aria-describedby="webhook-url-hint"
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <p id="webhook-url-hint" class={show.url ? 'field-error' : 'hint'}>
          {show.url ??
            'Deliveries are POSTed here, signed with the secret shown after registering.'}
        </p>
      </div>
      <fieldset class="event-choices" aria-describedby="webhook-events-hint">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <label key={name} class="checkbox">
            <input
              type="checkbox"
              checked={events.includes(name)}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                setEvents((now) =>
                  on
                    ? WEBHOOK_EVENTS.filter((e) => e === name || now.includes(e))
                    : now.filter((e) => e !== name),
                );
              }}
            />
            <span class="mono">{name}</span>
          </label>
        ))}
        <p id="webhook-events-hint" class={show.events ? 'field-error' : 'hint'}>
          {show.events ?? 'At least one.'}
        </p>
      </fieldset>
      {error && (
        <p class="error-state" role="alert">
          The webhook was not registered: {error}
        </p>
      )}
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? 'Registering…' : 'Register webhook'}
      </button>
    </form>
  );
}
