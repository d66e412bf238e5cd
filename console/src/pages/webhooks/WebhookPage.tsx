import { useState } from 'preact/hooks';
import type { components } from '../../../../client';
import { useLocation } from 'preact-iso';
import { api, errorMessage, unwrap, unwrapPage } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Pagination } from '../../components/Pagination';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { StatusBadge } from '../../components/StatusBadge';
import { useAsync, useQueryState } from '../../hooks';
import { useCan } from '../../session';
import {
  canRedeliver,
  DELIVERY_STATUSES,
  deliveryStatusFilter,
  pageFromQuery,
} from './webhook-rules';
import './webhooks.css';

const PAGE_SIZE = 20;

/** One webhook: what it receives, its delivery log (filtered, paginated), redeliver, delete. */
export function WebhookPage({ id = '' }: { id?: string }) {
  // There is no single-webhook read: the list is short (a workspace's webhooks), so it is looked up there.
  const hook = useAsync(
    async () => (await unwrap(api.GET('/v1/webhooks'))).find((h) => h.id === id),
    [id],
  );

  if (hook.error !== undefined && !hook.loading) {
    return (
      <section>
        <h1>Webhook</h1>
        <ErrorState error={hook.error} onRetry={hook.reload} />
      </section>
    );
  }
  if (hook.loading && hook.data?.id !== id) return <Loading label="Loading webhook…" />;
  if (!hook.data) {
    return (
      <section>
        <h1>Webhook not found</h1>
        <EmptyState title="This workspace has no webhook with this id">
          It may have been deleted. <a href="/console/webhooks">See all webhooks</a>.
        </EmptyState>
      </section>
    );
  }
  return <WebhookView hook={hook.data} />;
}

type Hook = components['schemas']['WebhookDto'];

function WebhookView({ hook }: { hook: Hook }) {
  const location = useLocation();
  const writes = useCan('webhooks:write');
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();
  return (
    <section class="webhook-page">
      <p class="breadcrumb">
        <a href="/console/webhooks">Webhooks</a>
      </p>
      <h1 class="webhook-url">{hook.url}</h1>
      <div class="panel">
        <dl class="facts">
          <div>
            <dt>Events</dt>
            <dd>
              <ul class="event-list">
                {hook.events.map((event) => (
                  <li key={event} class="mono">
                    {event}
                  </li>
                ))}
              </ul>
            </dd>
          </div>
          <div>
            <dt>Active</dt>
            <dd>
              {hook.isActive ? (
                <span class="badge status-completed">active</span>
              ) : (
                <span class="badge status-cancelled">inactive</span>
              )}
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <RelativeTime iso={hook.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Id</dt>
            <dd class="mono">{hook.id}</dd>
          </div>
        </dl>
        {writes ? (
          <button type="button" class="button danger" onClick={() => setDeleting(true)}>
            Delete webhook
          </button>
        ) : (
          <p class="hint scope-hint">
            Deleting the webhook and redelivering need the scope <code>webhooks:write</code>, which
            the key you signed in with lacks.
          </p>
        )}
      </div>

      <Deliveries hookId={hook.id} />

      <ConfirmDialog
        open={deleting}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        busy={busy}
        onCancel={() => setDeleting(false)}
        onConfirm={() => {
          setBusy(true);
          setDeleteError(undefined);
          unwrap(api.DELETE('/v1/webhooks/{id}', { params: { path: { id: hook.id } } })).then(
            () => {
              setBusy(false);
              setDeleting(false);
              location.route('/console/webhooks');
            },
            (err: unknown) => {
              setBusy(false);
              setDeleteError(errorMessage(err));
            },
          );
        }}
      >
        <p>
          No more events are sent to <strong class="webhook-url">{hook.url}</strong>, and its
          pending deliveries are cancelled. This cannot be undone.
        </p>
        {deleteError && (
          <p class="error-state" role="alert">
            {deleteError}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function Deliveries({ hookId }: { hookId: string }) {
  const writes = useCan('webhooks:write');
  const { query, set } = useQueryState();
  const status = deliveryStatusFilter(query.status);
  const page = pageFromQuery(query.page);
  const deliveries = useAsync(
    () =>
      unwrapPage(
        api.GET('/v1/webhooks/{id}/deliveries', {
          params: { path: { id: hookId }, query: { page, pageSize: PAGE_SIZE, status } },
        }),
      ),
    [hookId, page, status],
  );
  const [retrying, setRetrying] = useState<{ id: string; event: string }>();
  const [busy, setBusy] = useState(false);
  const [retryError, setRetryError] = useState<string>();
  const [message, setMessage] = useState<string>();

  return (
    <section aria-labelledby="delivery-log">
      <h2 id="delivery-log">Delivery log</h2>
      <form class="toolbar" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={status ?? ''}
            onChange={(event) =>
              set({ status: event.currentTarget.value, page: undefined }, { push: true })
            }
          >
            <option value="">All</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="button" onClick={deliveries.reload}>
          Refresh
        </button>
      </form>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {deliveries.error !== undefined && !deliveries.loading ? (
        <ErrorState error={deliveries.error} onRetry={deliveries.reload} />
      ) : !deliveries.data ? (
        <Loading label="Loading deliveries…" />
      ) : deliveries.data.items.length === 0 ? (
        <EmptyState title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
          {status
            ? 'Choose "All" in the status filter to see the other deliveries.'
            : 'A delivery is made for every subscribed event of the workspace: run a workflow to see one.'}
        </EmptyState>
      ) : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries table">
            <table aria-label="Deliveries">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                  <th scope="col" class="num">
                    Response
                  </th>
                  <th scope="col">Created</th>
                  <th scope="col">Delivered / next attempt</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.items.map((d) => (
                  <tr key={d.id} data-delivery-id={d.id}>
                    <th scope="row" class="mono">
                      {d.event}
                      {d.workflowRunId && (
                        <div>
                          <a
                            class="run-link"
                            href={`/console/runs/${encodeURIComponent(d.workflowRunId)}`}
                            title={`Run ${d.workflowRunId}`}
                          >
                            Open run
                          </a>
                        </div>
                      )}
                    </th>
                    <td>
                      <StatusBadge status={d.status} />
                    </td>
                    <td class="num">{d.attempts}</td>
                    <td class="num">{d.lastStatusCode ?? <span class="muted">–</span>}</td>
                    <td>
                      <RelativeTime iso={d.createdAt} />
                    </td>
                    <td>
                      {d.deliveredAt ? (
                        <>
                          delivered <RelativeTime iso={d.deliveredAt} />
                        </>
                      ) : d.nextAttemptAt ? (
                        <>
                          next <RelativeTime iso={d.nextAttemptAt} />
                        </>
                      ) : (
                        <span class="muted">–</span>
                      )}
                    </td>
                    <td class="last-error">{d.lastError ?? <span class="muted">–</span>}</td>
                    <td>
                      {writes && canRedeliver(d) ? (
                        <button
                          type="button"
                          class="button"
                          aria-label={`Redeliver ${d.event} delivery ${d.id}`}
                          onClick={() => {
                            setRetryError(undefined);
                            setRetrying({ id: d.id, event: d.event });
                          }}
                        >
                          Redeliver
                        </button>
                      ) : (
                        <span class="muted">–</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination
            page={deliveries.data.meta.page}
            totalPages={deliveries.data.meta.totalPages}
            total={deliveries.data.meta.total}
            onPage={(p) => set({ page: p === 1 ? undefined : p }, { push: true })}
          />
        </>
      )}

      <ConfirmDialog
        open={retrying !== undefined}
        title="Send this delivery again?"
        confirmLabel="Redeliver"
        busy={busy}
        onCancel={() => setRetrying(undefined)}
        onConfirm={() => {
          if (!retrying) return;
          setBusy(true);
          setRetryError(undefined);
          unwrap(
            api.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/retry', {
              params: { path: { id: hookId, deliveryId: retrying.id } },
            }),
          ).then(
            () => {
              setBusy(false);
              setMessage(
                `The ${retrying.event} delivery is queued again; its attempts start over.`,
              );
              setRetrying(undefined);
              deliveries.reload();
            },
            (err: unknown) => {
              setBusy(false);
              setRetryError(errorMessage(err));
            },
          );
        }}
      >
        <p>
          The <span class="mono">{retrying?.event}</span> event is sent again with the same
          webhook-id, so a receiver that already handled it can tell.
        </p>
        {retryError && (
          <p class="error-state" role="alert">
            {retryError}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
