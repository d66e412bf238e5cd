import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { components } from '../../../../client';
import { api, ApiError, unwrap, unwrapPage } from '../../api';
import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import { ErrorState, Loading } from '../../components/states';
import { formatDuration, formatUsd } from '../../format';
import { useAsync, useInterval, useQueryState } from '../../hooks';
import { useCan } from '../../session';
import { runDuration, TERMINAL_STATUSES } from '../runs/runs-query';
import { EventList } from './EventList';
import { RunEventStream, type StreamState } from './event-stream';
import { mergeEvents, statusAfterEvent } from './events';
import { LlmCalls } from './LlmCalls';
import { RunActions } from './RunActions';
import { SignalsPanel } from './SignalsPanel';
import { expectedSignalType, stateBefore, type DefinitionStepLike } from './run-rules';
import { StepDrawer } from './StepDrawer';
import { StepTimeline } from './StepTimeline';
import './run.css';

type RunEvent = components['schemas']['RunEventDto'];

/** While the run goes on, it is also read this often (entering WAITING records no event). */
const POLL_MS = 5000;
/** Events arriving together cause one read of the run, its steps and its cost. */
const REFRESH_DEBOUNCE_MS = 300;

const STREAM_TEXT: Record<StreamState, string> = {
  connecting: 'Live updates: connecting…',
  live: 'Live updates: on.',
  reconnecting: 'Live updates: connection lost, reconnecting…',
  ended: 'Live updates: the run is over.',
  closed: 'Live updates: off (the run is over).',
};

/** Every event of the run, oldest first (all pages of GET …/events). */
async function loadAllEvents(id: string): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for (let page = 1; ; page++) {
    const { items, meta } = await unwrapPage(
      api.GET('/v1/workflow-runs/{id}/events', {
        params: { path: { id }, query: { page, pageSize: 100 } },
      }),
    );
    all.push(...items);
    if (page >= meta.totalPages) return all;
  }
}

/**
 * Run: the header (status, definition version, durations, cost) with cancel, resume and retry; the
 * buffered signals and a form to send one; the step timeline and a step drawer; the event list, live through the run's event stream; the LLM calls. The
 * selected step and the event filters live in the URL.
 */
export function RunPage(props: { id?: string }) {
  const id = props.id ?? '';
  const { query, set } = useQueryState();
  const path = useMemo(() => ({ params: { path: { id } } }), [id]);

  // What the key cannot read is not asked for (README "Scopes"): the page shows the rest.
  const readsDefinitions = useCan('definitions:read');
  const readsCosts = useCan('costs:read');
  const run = useAsync(() => unwrap(api.GET('/v1/workflow-runs/{id}', path)), [path]);
  const definitionId = run.data?.definitionId;
  const definition = useAsync(
    () =>
      definitionId && readsDefinitions
        ? unwrap(
            api.GET('/v1/workflow-definitions/{id}', { params: { path: { id: definitionId } } }),
          )
        : Promise.resolve(undefined),
    [definitionId, readsDefinitions],
  );
  const steps = useAsync(() => unwrap(api.GET('/v1/workflow-runs/{id}/steps', path)), [path]);
  const cost = useAsync(
    () =>
      readsCosts
        ? unwrap(api.GET('/v1/workflow-runs/{id}/cost', path))
        : Promise.resolve(undefined),
    [path, readsCosts],
  );

  const [events, setEvents] = useState<RunEvent[]>([]);
  const [eventsError, setEventsError] = useState<unknown>();
  const [eventsLoaded, setEventsLoaded] = useState(false);
  const [streamState, setStreamState] = useState<StreamState>('closed');
  // The status an event just proved, shown until the run is read again.
  const [liveStatus, setLiveStatus] = useState<string>();
  useEffect(() => setLiveStatus(undefined), [run.data]);

  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refreshAll = useCallback(() => {
    run.reload();
    steps.reload();
    cost.reload();
  }, [run.reload, steps.reload, cost.reload]);
  const scheduleRefresh = useCallback(() => {
    if (refreshTimer.current !== undefined) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = undefined;
      refreshAll();
    }, REFRESH_DEBOUNCE_MS);
  }, [refreshAll]);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  const reloadEvents = useCallback(() => {
    loadAllEvents(id).then(
      (all) => {
        setEvents((known) => mergeEvents(all, known));
        setEventsError(undefined);
        setEventsLoaded(true);
      },
      (err: unknown) => setEventsError(err),
    );
  }, [id]);

  const stream = useRef<RunEventStream | undefined>(undefined);
  useEffect(() => {
    setEvents([]);
    setEventsLoaded(false);
    reloadEvents();
    const live = new RunEventStream({
      runId: id,
      onEvent: (event) => {
        setEvents((known) => mergeEvents(known, [event as RunEvent]));
        const status = statusAfterEvent(event);
        if (status) setLiveStatus(status);
        scheduleRefresh();
      },
      onState: setStreamState,
      // The browser gave up on the stream: read the run first (a 401 here sends the user to sign-in).
      shouldReopen: async () => {
        const current = await unwrap(api.GET('/v1/workflow-runs/{id}', path));
        if (!TERMINAL_STATUSES.has(current.status)) return true;
        // Over: whatever the stream could not deliver is in the list.
        reloadEvents();
        refreshAll();
        return false;
      },
    });
    stream.current = live;
    return () => live.close();
    // The stream belongs to the run id; the callbacks it holds are stable for it.
  }, [id]);

  const status = liveStatus ?? run.data?.status;
  const terminal = status !== undefined && TERMINAL_STATUSES.has(status);
  // Follow the run while it goes on, from the last event seen (again after a retry or a resume).
  useEffect(() => {
    if (status !== undefined && !terminal) stream.current?.open();
  }, [status, terminal]);

  const [now, setNow] = useState(Date.now());
  useInterval(() => setNow(Date.now()), terminal ? undefined : 1000);

  // The event list and the LLM calls do not depend on the clock: the same element each second lets
  // Preact skip them (a run may have thousands of events).
  const onEventFilter = useCallback(
    (patch: { type?: string; failed?: string }) => set(patch),
    [set],
  );
  const eventList = useMemo(
    () => (
      <EventList
        events={events}
        type={query.type}
        failedOnly={query.failed === '1'}
        onFilter={onEventFilter}
      />
    ),
    [events, query.type, query.failed, onEventFilter],
  );
  const llmCalls = useMemo(() => cost.data && <LlmCalls cost={cost.data} />, [cost.data]);
  useInterval(refreshAll, terminal ? undefined : POLL_MS);

  if (run.error instanceof ApiError && run.error.status === 404) {
    return (
      <section aria-labelledby="run-title">
        <h1 id="run-title">Run not found</h1>
        <div class="error-state" role="alert">
          <p>
            There is no run <code class="mono break">{id}</code> in this workspace. Check the id (a
            run of another workspace is not shown), or find the run in the{' '}
            <a href="/console/runs">list of runs</a>.
          </p>
        </div>
      </section>
    );
  }
  if (!run.data) {
    return run.error !== undefined ? (
      <section aria-labelledby="run-title">
        <h1 id="run-title">Run</h1>
        <ErrorState error={run.error} onRetry={run.reload} />
      </section>
    ) : (
      <Loading label="Loading the run…" />
    );
  }

  const data = run.data;
  const shownStatus = status ?? data.status;
  const definitionSteps: DefinitionStepLike[] | undefined = definition.data?.steps;
  const duration = runDuration({ ...data, status: shownStatus }, now);
  const currentStep =
    definitionSteps && data.currentStepIndex !== undefined
      ? definitionSteps[data.currentStepIndex]
      : undefined;
  const stepRuns = steps.data ?? [];
  const selected = stepRuns.find((s) => s.id === query.step);

  return (
    <section class="run-page" aria-labelledby="run-title">
      <header class="panel run-header">
        <div class="run-title-row">
          <h1 id="run-title">
            Run <span class="mono break">{data.id}</span>
          </h1>
          <StatusBadge status={shownStatus} />
        </div>
        <dl class="facts">
          <div>
            <dt>Definition</dt>
            <dd>
              {definition.data ? (
                <a href={`/console/definitions/${definition.data.id}`}>
                  {definition.data.name} version {definition.data.version}
                </a>
              ) : readsDefinitions ? (
                <a href={`/console/definitions/${data.definitionId}`} class="mono">
                  {data.definitionId}
                </a>
              ) : (
                <span class="mono">{data.definitionId}</span>
              )}
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <RelativeTime iso={data.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>
              {/* Keyed: a RelativeTime measures from when it was mounted (refreshed every 30 s). */}
              <RelativeTime key={data.updatedAt} iso={data.updatedAt} />
            </dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd>
              {formatDuration(duration.ms)}
              {duration.ongoing ? ' so far' : ''}
            </dd>
          </div>
          <div>
            <dt>{TERMINAL_STATUSES.has(shownStatus) ? 'Last step' : 'Current step'}</dt>
            <dd>
              {currentStep ? (
                <>
                  {currentStep.name} <span class="muted">({currentStep.type})</span>
                </>
              ) : (
                <span class="muted">–</span>
              )}
            </dd>
          </div>
          {definition.data?.maxCostUsd !== undefined && (
            <div>
              <dt>Run budget</dt>
              <dd data-fact="run-budget">
                {formatUsd(definition.data.maxCostUsd)} of LLM calls
                {definition.data.onBudgetExceeded === 'approval' ? ', then a human decides' : ''}
              </dd>
            </div>
          )}
          <div>
            <dt>LLM cost</dt>
            <dd>
              {cost.data ? (
                `${formatUsd(cost.data.totalCostUsd)} (${cost.data.calls.length} ${
                  cost.data.calls.length === 1 ? 'call' : 'calls'
                })`
              ) : readsCosts ? (
                <span class="muted">–</span>
              ) : (
                <span class="muted">needs the scope costs:read</span>
              )}
            </dd>
          </div>
        </dl>
        {data.error && (
          <div class="run-error">
            <h2 class="run-error-title">Why it failed</h2>
            <pre>{data.error}</pre>
          </div>
        )}
        <RunActions
          runId={data.id}
          status={shownStatus}
          expectedSignal={expectedSignalType(definitionSteps, data.currentStepIndex)}
          onChanged={(done) => {
            refreshAll();
            reloadEvents();
            // Follow what the action started (a retry can fail again before the run is read): the
            // stream continues after the last event seen and ends at the next terminal one.
            if (done) stream.current?.open();
          }}
        />
        <p class="stream-state hint" role="status">
          {STREAM_TEXT[streamState]}
        </p>
      </header>

      <SignalsPanel
        runId={data.id}
        status={shownStatus}
        signals={data.bufferedSignals}
        expectedSignal={expectedSignalType(definitionSteps, data.currentStepIndex)}
        onChanged={(done) => {
          refreshAll();
          reloadEvents();
          if (done) stream.current?.open();
        }}
      />

      <h2>Steps</h2>
      {steps.error !== undefined && <ErrorState error={steps.error} onRetry={steps.reload} />}
      {steps.data === undefined && steps.error === undefined && <Loading label="Loading steps…" />}
      {steps.data && steps.data.length === 0 && (
        <p class="empty-state">No step has run yet: an executor picks the run up shortly.</p>
      )}
      {stepRuns.length > 0 && (
        <StepTimeline
          steps={stepRuns}
          now={now}
          selectedId={selected?.id}
          onOpen={(stepRunId) => set({ step: stepRunId })}
        />
      )}
      {selected && (
        <StepDrawer
          key={selected.id}
          step={selected}
          state={stateBefore(data.input, stepRuns, definitionSteps, selected.id)}
          definitionStep={definitionSteps?.[selected.stepIndex]}
          events={events.filter((e) => e.stepRunId === selected.id)}
          now={now}
          onClose={() => set({ step: undefined })}
        />
      )}

      <h2>Input and output</h2>
      <div class="run-io">
        <div>
          <h3>Input</h3>
          <JsonViewer value={data.input} label="Run input" openDepth={2} />
        </div>
        <div>
          <h3>Output</h3>
          {data.output === null ? (
            <p class="muted">
              {shownStatus === 'COMPLETED' ? 'No output.' : 'None until the run completes.'}
            </p>
          ) : (
            <JsonViewer value={data.output} label="Run output" openDepth={2} />
          )}
        </div>
      </div>

      <h2>Events</h2>
      {eventsError !== undefined && <ErrorState error={eventsError} onRetry={reloadEvents} />}
      {!eventsLoaded && eventsError === undefined ? <Loading label="Loading events…" /> : eventList}

      <h2>LLM calls</h2>
      {!readsCosts && (
        <p class="muted">
          The LLM calls of a run are part of its costs: the key you signed in with lacks the scope{' '}
          <code>costs:read</code>.
        </p>
      )}
      {cost.error !== undefined && <ErrorState error={cost.error} onRetry={cost.reload} />}
      {llmCalls}
    </section>
  );
}
