import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from './support/app';
import { exportedMetricNames, promqlMetricNames } from './support/metric-names';

const DASHBOARD = path.resolve(__dirname, '..', 'deploy', 'grafana', 'workflow-orchestrator.json');

interface Target {
  refId: string;
  expr: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; definition?: string }> };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

function allPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** Every PromQL expression of the dashboard, named by its panel or variable. */
function expressions(): Array<{ where: string; expr: string }> {
  const fromPanels = allPanels(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({
      where: `panel "${panel.title}" ${t.refId}`,
      expr: t.expr,
    })),
  );
  // Query variables: Grafana's label_values(<series selector>, <label>) names a metric first.
  const fromVariables = dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => {
      const query =
        typeof v.query === 'string' ? v.query : (v.query as { query: string } | undefined)?.query;
      const labelValues = /^label_values\((.*),\s*\w+\)$/.exec(query ?? '');
      return { where: `variable $${v.name}`, expr: labelValues ? labelValues[1] : (query ?? '') };
    });
  return [...fromPanels, ...fromVariables];
}

describe('the Grafana dashboard (deploy/grafana)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has the panels an operator looks for, each with a query', () => {
    const titles = allPanels(dashboard.panels)
      .filter((p) => p.type !== 'row')
      .map((p) => p.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Runs finished /s by status',
        'Step duration percentiles',
        'Backlog',
        'Age of the oldest due step',
        'Executor saturation',
        'LLM spend by model',
        'Webhook failures by outcome',
        'HTTP latency',
      ]),
    );
    const withoutQuery = allPanels(dashboard.panels)
      .filter((p) => p.type !== 'row' && (p.targets ?? []).length === 0)
      .map((p) => p.title);
    expect(withoutQuery).toEqual([]);
  });

  it('reads latency percentiles from histogram buckets', () => {
    const quantiles = expressions().filter((e) => e.expr.includes('histogram_quantile'));
    expect(quantiles.length).toBeGreaterThan(0);
    for (const { where, expr } of quantiles) {
      expect({ where, names: promqlMetricNames(expr) }).toEqual({
        where,
        names: [expect.stringMatching(/_bucket$/)],
      });
      expect({ where, groupsByLe: /by \(le\b/.test(expr) }).toEqual({ where, groupsByLe: true });
    }
  });

  it('names in every query only metrics that GET /metrics exports', async () => {
    const exported = await exportedMetricNames(t.baseUrl);
    const unknown: string[] = [];
    for (const { where, expr } of expressions()) {
      const names = promqlMetricNames(expr);
      // A query without a metric name would pass the check below without checking anything.
      expect({ where, names: names.length > 0 }).toEqual({ where, names: true });
      for (const name of names) if (!exported.has(name)) unknown.push(`${where}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });
});

describe('promqlMetricNames', () => {
  it('finds the metrics and skips functions, labels, matchers, ranges and variables', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, step_type) (rate(orchestrator_step_duration_seconds_bucket{namespace="$namespace",outcome!="failed"}[$__rate_interval])))',
      ),
    ).toEqual(['orchestrator_step_duration_seconds_bucket']);
    expect(
      promqlMetricNames(
        '(max(orchestrator_due_steps{namespace="x"}) or vector(0)) + sum without (pod) (orchestrator_executor_slots_in_use) * 1e3',
      ),
    ).toEqual(['orchestrator_due_steps', 'orchestrator_executor_slots_in_use']);
    expect(promqlMetricNames('time() - max(process_start_time_seconds offset 5m)')).toEqual([
      'process_start_time_seconds',
    ]);
  });
});
