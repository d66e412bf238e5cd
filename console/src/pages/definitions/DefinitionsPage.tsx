import { useMemo } from 'preact/hooks';
import { api, unwrap } from '../../api';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { useAsync, useQueryState } from '../../hooks';
import { groupByName } from './definition-view';
import './definitions.css';

/** Every definition of the workspace, grouped by name, each name's versions newest first. */
export function DefinitionsPage(_props: { id?: string }) {
  const { query, set } = useQueryState();
  const list = useAsync(() => unwrap(api.GET('/v1/workflow-definitions')), []);
  const filter = query.q ?? '';
  const groups = useMemo(() => groupByName(list.data ?? [], filter), [list.data, filter]);

  return (
    <section class="definitions-page">
      <h1>Definitions</h1>
      <form class="toolbar" role="search" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="definition-filter">Name contains</label>
          <input
            id="definition-filter"
            type="search"
            value={filter}
            onInput={(event) => set({ q: event.currentTarget.value })}
          />
        </div>
      </form>
      {list.error !== undefined && !list.loading ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading label="Loading definitions…" />
      ) : list.data.length === 0 ? (
        <EmptyState title="No workflow definitions yet">
          Register one with <code>POST /v1/workflow-definitions</code> (see the README's API
          section); it appears here with its steps.
        </EmptyState>
      ) : groups.length === 0 ? (
        <EmptyState title="No definition name matches this filter">
          Clear the "Name contains" field to see every definition.
        </EmptyState>
      ) : (
        groups.map((group) => (
          <section class="definition-group" key={group.name} aria-label={group.name}>
            <h2>{group.name}</h2>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">Description</th>
                    <th scope="col" class="num">
                      Steps
                    </th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {group.versions.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <a
                          href={`/console/definitions/${encodeURIComponent(d.id)}`}
                          aria-label={`${d.name} version ${d.version}`}
                        >
                          {d.version}
                        </a>
                      </td>
                      <td class="definition-description">
                        {d.description ?? <span class="muted">–</span>}
                      </td>
                      <td class="num">{d.steps.length}</td>
                      <td>
                        <RelativeTime iso={d.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ))
      )}
    </section>
  );
}
