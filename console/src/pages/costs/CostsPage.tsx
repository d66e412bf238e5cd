import { useMemo } from 'preact/hooks';
import { api, unwrap } from '../../api';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { formatInteger, formatUsd } from '../../format';
import { useAsync, useQueryState } from '../../hooks';
import { BudgetPanel } from './BudgetPanel';
import { ModelShareChart, StackedCostChart } from './charts';
import {
  bucketLabel,
  bucketStarts,
  PRESETS,
  resolveRange,
  type RangeKind,
  type ResolvedRange,
} from './cost-range';
import { colourFor, share, stackByModel } from './cost-series';
import './costs.css';

async function loadCosts(range: ResolvedRange) {
  const span = { from: range.from, to: range.to };
  const [summary, series, byDefinition] = await Promise.all([
    unwrap(api.GET('/v1/cost/summary', { params: { query: span } })),
    unwrap(
      api.GET('/v1/cost/timeseries', { params: { query: { ...span, bucket: range.bucket } } }),
    ),
    unwrap(api.GET('/v1/cost/by-definition', { params: { query: span } })),
  ]);
  return { range, summary, series, byDefinition };
}

type Costs = Awaited<ReturnType<typeof loadCosts>>;

/** LLM spend over a chosen range: totals, cost over time by model, by model, by definition version. */
export function CostsPage(_props: { id?: string }) {
  const { query, set } = useQueryState();
  const resolved = useMemo(
    () => resolveRange(query, Date.now()),
    [query.range, query.from, query.to],
  );
  const costs = useAsync<Costs | undefined>(
    () => (resolved.ok ? loadCosts(resolved.range) : Promise.resolve(undefined)),
    [resolved],
  );
  const range = resolved.ok ? resolved.range : undefined;

  return (
    <section class="costs-page">
      <h1>Costs</h1>
      <BudgetPanel />
      <RangePicker query={query} range={range} onChange={(patch) => set(patch, { push: true })} />
      {!resolved.ok ? (
        <p class="error-state" role="alert">
          {resolved.problem}
        </p>
      ) : costs.error !== undefined && !costs.loading ? (
        <ErrorState error={costs.error} onRetry={costs.reload} />
      ) : !costs.data || costs.data.range !== resolved.range ? (
        <Loading label="Loading costs…" />
      ) : (
        <CostsView costs={costs.data} />
      )}
    </section>
  );
}

function RangePicker({
  query,
  range,
  onChange,
}: {
  query: Record<string, string>;
  range: ResolvedRange | undefined;
  onChange: (patch: Record<string, string | undefined>) => void;
}) {
  const kind = (range?.kind ?? query.range) as RangeKind;
  return (
    <form class="toolbar cost-range" onSubmit={(event) => event.preventDefault()}>
      <div class="field">
        <label for="cost-range">Range</label>
        <select
          id="cost-range"
          value={kind}
          onChange={(event) => {
            const next = event.currentTarget.value as RangeKind;
            if (next === 'custom') {
              // Start from the dates of the view shown now, so "custom" is a small step from a preset.
              onChange({ range: next, from: range?.fromDate, to: range?.toDate });
            } else {
              onChange({ range: next, from: undefined, to: undefined });
            }
          }}
        >
          {PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      {kind === 'custom' && (
        <>
          <div class="field">
            <label for="cost-from">From (UTC)</label>
            <input
              id="cost-from"
              type="date"
              value={query.from ?? ''}
              onChange={(event) => onChange({ from: event.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="cost-to">To (UTC, included)</label>
            <input
              id="cost-to"
              type="date"
              value={query.to ?? ''}
              onChange={(event) => onChange({ to: event.currentTarget.value })}
            />
          </div>
        </>
      )}
      {range && (
        <p class="range-summary muted">
          {range.from.slice(0, 10)} to {range.to.slice(0, 10)} (UTC), charted by {range.bucket}
        </p>
      )}
    </form>
  );
}

function CostsView({ costs }: { costs: Costs }) {
  const { summary, series, byDefinition, range } = costs;
  const ranking = useMemo(() => summary.byModel.map((m) => m.model), [summary]);
  const stacked = useMemo(
    () => stackByModel(series.points, bucketStarts(range.from, range.to, range.bucket)),
    [series, range],
  );
  const labels = useMemo(
    () => stacked.starts.map((s) => bucketLabel(s, range.bucket)),
    [stacked, range],
  );
  const chartSeries = useMemo(
    () => stacked.series.map((s) => ({ ...s, colour: colourFor(s.model, ranking) })),
    [stacked, ranking],
  );
  const slices = useMemo(
    () =>
      summary.byModel.map((m) => ({
        model: m.model,
        costUsd: m.costUsd,
        colour: colourFor(m.model, ranking),
      })),
    [summary, ranking],
  );

  return (
    <>
      <dl class="cost-totals">
        <div>
          <dt>Cost</dt>
          <dd data-total="cost">{formatUsd(summary.totalCostUsd)}</dd>
        </div>
        <div>
          <dt>Input tokens</dt>
          <dd data-total="input">{formatInteger(summary.totalInputTokens)}</dd>
        </div>
        <div>
          <dt>Output tokens</dt>
          <dd data-total="output">{formatInteger(summary.totalOutputTokens)}</dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd data-total="runs">{formatInteger(summary.totalRuns)}</dd>
        </div>
      </dl>

      {summary.byModel.length === 0 ? (
        <EmptyState title="No LLM spend in this range">
          Cost is recorded for every completed call of an <code>llm</code> step. Choose a longer
          range above, or start a run of a definition with an LLM step.
        </EmptyState>
      ) : (
        <>
          <section aria-labelledby="cost-over-time">
            <h2 id="cost-over-time">Cost over time by model</h2>
            <div class="panel">
              <StackedCostChart
                labels={labels}
                series={chartSeries}
                label={`Stacked bar chart of LLM cost per ${range.bucket} by model, ${range.from.slice(0, 10)} to ${range.to.slice(0, 10)} UTC. The same numbers are in the table below it.`}
              />
              <details class="chart-data">
                <summary>Show the chart's numbers as a table</summary>
                <div
                  class="table-wrap"
                  tabIndex={0}
                  role="region"
                  aria-label="Cost over time by model table"
                >
                  <table aria-label="Cost over time by model">
                    <thead>
                      <tr>
                        <th scope="col">{range.bucket === 'day' ? 'Day (UTC)' : 'Hour (UTC)'}</th>
                        <th scope="col">Model</th>
                        <th scope="col" class="num">
                          Cost
                        </th>
                        <th scope="col" class="num">
                          Input tokens
                        </th>
                        <th scope="col" class="num">
                          Output tokens
                        </th>
                        <th scope="col" class="num">
                          Calls
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {series.points.map((p) => (
                        <tr key={`${p.start}|${p.model}`}>
                          <td>
                            <time dateTime={p.start}>{bucketLabel(p.start, range.bucket)}</time>
                          </td>
                          <td class="mono">{p.model}</td>
                          <td class="num">{formatUsd(p.costUsd)}</td>
                          <td class="num">{formatInteger(p.inputTokens)}</td>
                          <td class="num">{formatInteger(p.outputTokens)}</td>
                          <td class="num">{formatInteger(p.calls)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </div>
          </section>

          <section aria-labelledby="cost-by-model">
            <h2 id="cost-by-model">Cost by model</h2>
            <div class="cost-split">
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Cost by model table">
                <table aria-label="Cost by model">
                  <thead>
                    <tr>
                      <th scope="col">Model</th>
                      <th scope="col" class="num">
                        Cost
                      </th>
                      <th scope="col" class="num">
                        Share
                      </th>
                      <th scope="col" class="num">
                        Input tokens
                      </th>
                      <th scope="col" class="num">
                        Output tokens
                      </th>
                      <th scope="col" class="num">
                        Calls
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {summary.byModel.map((m) => (
                      <tr key={m.model}>
                        <th scope="row" class="mono">
                          <span
                            class="swatch"
                            aria-hidden="true"
                            ref={(el) => {
                              if (el) el.style.background = colourFor(m.model, ranking);
                            }}
                          />
                          {m.model}
                        </th>
                        <td class="num">{formatUsd(m.costUsd)}</td>
                        <td class="num">{share(m.costUsd, summary.totalCostUsd)}</td>
                        <td class="num">{formatInteger(m.inputTokens)}</td>
                        <td class="num">{formatInteger(m.outputTokens)}</td>
                        <td class="num">{formatInteger(m.calls)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div class="panel">
                <ModelShareChart
                  slices={slices}
                  label="Doughnut chart of each model's share of the cost in this range. The numbers are in the table beside it."
                />
              </div>
            </div>
          </section>
        </>
      )}

      <section aria-labelledby="cost-by-definition">
        <h2 id="cost-by-definition">Cost by workflow definition</h2>
        {byDefinition.definitions.length === 0 ? (
          <EmptyState title="No definition has LLM spend in this range">
            Runs of definitions with <code>llm</code> steps show up here once they have made calls.
          </EmptyState>
        ) : (
          <div
            class="table-wrap"
            tabIndex={0}
            role="region"
            aria-label="Cost by workflow definition table"
          >
            <table aria-label="Cost by workflow definition">
              <thead>
                <tr>
                  <th scope="col">Definition</th>
                  <th scope="col">Version</th>
                  <th scope="col" class="num">
                    Cost
                  </th>
                  <th scope="col" class="num">
                    Input tokens
                  </th>
                  <th scope="col" class="num">
                    Output tokens
                  </th>
                  <th scope="col" class="num">
                    Calls
                  </th>
                  <th scope="col" class="num">
                    Runs
                  </th>
                </tr>
              </thead>
              <tbody>
                {byDefinition.definitions.map((d) => (
                  <tr key={d.definitionId}>
                    <th scope="row">
                      <a href={`/console/definitions/${encodeURIComponent(d.definitionId)}`}>
                        {d.name}
                      </a>
                    </th>
                    <td>{d.version}</td>
                    <td class="num">{formatUsd(d.costUsd)}</td>
                    <td class="num">{formatInteger(d.inputTokens)}</td>
                    <td class="num">{formatInteger(d.outputTokens)}</td>
                    <td class="num">{formatInteger(d.calls)}</td>
                    <td class="num">{formatInteger(d.runs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
