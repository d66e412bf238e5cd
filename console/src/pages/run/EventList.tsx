import type { components } from '../../../../client';
import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState } from '../../components/states';
import { eventStepName, filterEvents, isFailureEvent, presentTypes } from './events';

type RunEvent = components['schemas']['RunEventDto'];

/**
 * The run's events, oldest first, with a type filter and a failed-only switch (both in the URL). The
 * list grows as the live stream delivers events.
 */
export function EventList(props: {
  events: RunEvent[];
  type: string | undefined;
  failedOnly: boolean;
  onFilter: (patch: { type?: string; failed?: string }) => void;
}) {
  const shown = filterEvents(props.events, { type: props.type, failedOnly: props.failedOnly });
  const types = presentTypes(props.events);
  if (props.type && !types.includes(props.type)) types.push(props.type);
  const filtered = !!props.type || props.failedOnly;
  return (
    <>
      <form class="toolbar" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="event-type">Event type</label>
          <select
            id="event-type"
            value={props.type ?? ''}
            onChange={(e) => props.onFilter({ type: e.currentTarget.value || undefined })}
          >
            <option value="">All types</option>
            {types.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <label class="checkbox">
          <input
            type="checkbox"
            checked={props.failedOnly}
            onChange={(e) => props.onFilter({ failed: e.currentTarget.checked ? '1' : undefined })}
          />{' '}
          Failed only
        </label>
        <p class="hint event-count" aria-live="polite">
          {filtered
            ? `Showing ${shown.length} of ${props.events.length} events`
            : `${props.events.length} events`}
        </p>
      </form>
      {shown.length === 0 ? (
        <EmptyState title={filtered ? 'No events match these filters.' : 'No events yet.'}>
          {filtered ? (
            <p>Pick another type or turn off &quot;Failed only&quot;.</p>
          ) : (
            <p>Events appear here as the run records them.</p>
          )}
        </EmptyState>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Events table">
          <table class="events-table" aria-label="Run events, oldest first">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Step</th>
                <th scope="col">Payload</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((event) => (
                <tr key={event.id} class={isFailureEvent(event) ? 'event-failure' : undefined}>
                  <td class="nowrap">
                    <RelativeTime iso={event.createdAt} />
                  </td>
                  <td>
                    <code class="event-type">{event.eventType}</code>
                  </td>
                  <td>{eventStepName(event) ?? <span class="muted">–</span>}</td>
                  <td class="event-payload">
                    {Object.keys(event.payload).length === 0 ? (
                      <span class="muted">–</span>
                    ) : (
                      <JsonViewer value={event.payload} label="Event payload" openDepth={2} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
