import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { components } from '../../../../client';
import { api, unwrap, unwrapPage } from '../../api';
import { Pagination } from '../../components/Pagination';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { formatDuration } from '../../format';
import { useAsync, useInterval, useQueryState } from '../../hooks';
import { useCan } from '../../session';
import {
  definitionLabel,
  hasFilters,
  isoToUtcInput,
  listParams,
  RUN_STATUSES,
  runDuration,
  runIdFromSearch,
  sortDefinitions,
  utcInputToIso,
  type FilterProblem,
} from './runs-query';
import './runs.css';

type Run = components['schemas']['RunDto'];
type Definition = components['schemas']['DefinitionDto'];

/** How often the shown page is read again while the tab is visible (live status). */
const REFRESH_MS = 5000;

/**
 * Runs: the workspace's runs, newest first, filtered by status, definition version and creation time,
 * with an id search. Every filter and the page live in the URL. The shown page is read again every
 * few seconds while visible; the table is updated in place (rows keyed by id), so focus and scroll stay.
 */
export function RunsPage(_props: { id?: string }) {
  const { query, set } = useQueryState();
  const { params, problems } = listParams(query);
  const filtered = hasFilters(query);

  // Without definitions:read the runs show their definition ids, and the filter takes no names.
  const readsDefinitions = useCan('definitions:read');
  const definitions = useAsync(
    () => (readsDefinitions ? unwrap(api.GET('/v1/workflow-definitions')) : Promise.resolve([])),
    [readsDefinitions],
  );
  const byId = useMemo(
    () => new Map((definitions.data ?? []).map((d) => [d.id, d])),
    [definitions.data],
  );

  const key = JSON.stringify(params);
  const runs = useAsync(
    () => unwrapPage(api.GET('/v1/workflow-runs', { params: { query: params } })),
    [key],
  );
  useInterval(runs.reload, REFRESH_MS);
  const [now, setNow] = useState(Date.now());
  useInterval(() => setNow(Date.now()), REFRESH_MS);

  const setFilter = (patch: Record<string, string | undefined>) =>
    set({ ...patch, page: undefined });

  return (
    <section class="runs-page" aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <IdSearch />
      <Filters
        query={query}
        problems={problems}
        definitions={readsDefinitions ? definitions.data : undefined}
        definitionsError={definitions.error}
        onChange={setFilter}
        onClear={() =>
          set({
            status: undefined,
            definitionId: undefined,
            createdFrom: undefined,
            createdTo: undefined,
            page: undefined,
          })
        }
        filtered={filtered}
      />
      {runs.error !== undefined && <ErrorState error={runs.error} onRetry={runs.reload} />}
      {runs.data === undefined && runs.error === undefined && <Loading label="Loading runs…" />}
      {runs.data && runs.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No runs match these filters.' : 'No runs yet.'}>
          {filtered ? (
            <p>Widen the time range, pick another status or definition, or clear the filters.</p>
          ) : (
            <p>
              Runs appear here once they are started with <code>POST /v1/workflow-runs</code> (see
              the README&apos;s quick start).
            </p>
          )}
        </EmptyState>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <>
          <RunsTable runs={runs.data.items} definitions={byId} now={now} />
          <Pagination
            page={runs.data.meta.page}
            totalPages={runs.data.meta.totalPages}
            total={runs.data.meta.total}
            onPage={(page) => set({ page: page === 1 ? undefined : page }, { push: true })}
          />
        </>
      )}
      <p class="hint runs-live-note">
        The list refreshes every {REFRESH_MS / 1000} seconds while this tab is visible.
      </p>
    </section>
  );
}

/** Opens a run by its id, typed or pasted (a console link or an API URL holding one works too). */
function IdSearch() {
  const location = useLocation();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  return (
    <form
      class="runs-search"
      role="search"
      aria-label="Open a run by id"
      onSubmit={(event) => {
        event.preventDefault();
        const id = runIdFromSearch(text);
        if (!id) {
          setProblem('Enter a run id such as 0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.');
          return;
        }
        setProblem(undefined);
        location.route(`/console/runs/${id}`);
      }}
    >
      <div class="field">
        <label for="run-id-search">Run id</label>
        <input
          id="run-id-search"
          type="search"
          value={text}
          spellcheck={false}
          autocomplete="off"
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? 'run-id-problem' : undefined}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </div>
      <button type="submit" class="button">
        Open run
      </button>
      {problem && (
        <p id="run-id-problem" class="field-problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

function Filters(props: {
  query: Record<string, string>;
  problems: FilterProblem[];
  definitions: Definition[] | undefined;
  definitionsError: unknown;
  filtered: boolean;
  onChange: (patch: Record<string, string | undefined>) => void;
  onClear: () => void;
}) {
  const { query } = props;
  const readsDefinitions = useCan('definitions:read');
  const problemOf = (field: FilterProblem['field']) =>
    props.problems.find((p) => p.field === field)?.message;
  const sorted = useMemo(() => sortDefinitions(props.definitions ?? []), [props.definitions]);
  const unknownDefinition =
    query.definitionId && props.definitions && !sorted.some((d) => d.id === query.definitionId);
  return (
    <form
      class="toolbar runs-filters"
      aria-label="Filter runs"
      onSubmit={(e) => e.preventDefault()}
    >
      <div class="field">
        <label for="runs-status">Status</label>
        <select
          id="runs-status"
          value={query.status ?? ''}
          aria-invalid={problemOf('status') ? 'true' : undefined}
          aria-describedby={problemOf('status') ? 'runs-status-problem' : undefined}
          onChange={(e) => props.onChange({ status: e.currentTarget.value || undefined })}
        >
          <option value="">Any status</option>
          {RUN_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
        {problemOf('status') && (
          <span id="runs-status-problem" class="field-problem">
            {problemOf('status')}
          </span>
        )}
      </div>
      {readsDefinitions && (
        <div class="field">
          <label for="runs-definition">Definition</label>
          <select
            id="runs-definition"
            value={query.definitionId ?? ''}
            aria-describedby={props.definitionsError ? 'runs-definition-problem' : undefined}
            onChange={(e) => props.onChange({ definitionId: e.currentTarget.value || undefined })}
          >
            <option value="">Any definition</option>
            {unknownDefinition && <option value={query.definitionId}>{query.definitionId}</option>}
            {sorted.map((definition) => (
              <option key={definition.id} value={definition.id}>
                {definitionLabel(definition)}
              </option>
            ))}
          </select>
          {props.definitionsError !== undefined && (
            <span id="runs-definition-problem" class="field-problem">
              The definitions could not be loaded; reload the page to filter by definition.
            </span>
          )}
        </div>
      )}
      <TimeField
        id="runs-created-from"
        label="Created from (UTC)"
        value={query.createdFrom}
        problem={problemOf('createdFrom')}
        onChange={(iso) => props.onChange({ createdFrom: iso })}
      />
      <TimeField
        id="runs-created-to"
        label="Created before (UTC)"
        value={query.createdTo}
        problem={problemOf('createdTo')}
        onChange={(iso) => props.onChange({ createdTo: iso })}
      />
      <button type="button" class="button" disabled={!props.filtered} onClick={props.onClear}>
        Clear filters
      </button>
    </form>
  );
}

/** A date-time input read and written in UTC; the URL holds the ISO instant. */
function TimeField(props: {
  id: string;
  label: string;
  value: string | undefined;
  problem: string | undefined;
  onChange: (iso: string | undefined) => void;
}) {
  const problemId = `${props.id}-problem`;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="datetime-local"
        value={isoToUtcInput(props.value)}
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby={props.problem ? problemId : undefined}
        onChange={(e) => props.onChange(utcInputToIso(e.currentTarget.value) || undefined)}
      />
      {props.problem && (
        <span id={problemId} class="field-problem">
          {props.problem}
        </span>
      )}
    </div>
  );
}

function RunsTable(props: { runs: Run[]; definitions: Map<string, Definition>; now: number }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Runs table">
      <table class="runs-table" aria-label="Runs, newest first">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Definition</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
            <th scope="col" class="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((run) => {
            const definition = props.definitions.get(run.definitionId);
            const duration = runDuration(run, props.now);
            return (
              <tr key={run.id}>
                <td>
                  <a class="mono run-id" href={`/console/runs/${run.id}`}>
                    {run.id}
                  </a>
                </td>
                <td class="runs-definition">
                  {definition ? (
                    definitionLabel(definition)
                  ) : (
                    <span class="mono muted">{run.definitionId}</span>
                  )}
                </td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td>
                  <RelativeTime iso={run.createdAt} />
                </td>
                <td>
                  <RelativeTime iso={run.updatedAt} />
                </td>
                <td class="num">
                  {formatDuration(duration.ms)}
                  {duration.ongoing && <span class="muted"> so far</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
