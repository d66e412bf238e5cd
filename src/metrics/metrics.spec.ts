import { loadConfig } from '../config/app-config';
import { BoundedLabel, Metrics } from './metrics';

function metrics(env: Record<string, string> = {}): Metrics {
  return new Metrics(loadConfig({ LOG_LEVEL: 'silent', ...env }));
}

async function text(m: Metrics): Promise<string> {
  return (await m.scrape()).body;
}

describe('BoundedLabel', () => {
  it('passes the first values through and turns later new ones into "other"', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'c', 'a', 'd', 'b'].map((v) => label.value(v))).toEqual([
      'a',
      'b',
      'other',
      'a',
      'other',
      'b',
    ]);
  });
});

describe('Metrics', () => {
  it('sums the database readings without the workspace label, the oldest age being the max', async () => {
    const m = metrics();
    m.databaseRead({
      dueSteps: [
        { workspaceId: 'w1', count: 3, oldestAgeSeconds: 1.5 },
        { workspaceId: 'w2', count: 2, oldestAgeSeconds: 7 },
      ],
      pendingApprovals: [{ workspaceId: 'w1', count: 4 }],
    });
    const out = await text(m);
    expect(out).toMatch(/^orchestrator_due_steps 5$/m);
    expect(out).toMatch(/^orchestrator_due_steps_oldest_age_seconds 7$/m);
    expect(out).toMatch(/^orchestrator_approvals_pending 4$/m);
    // A later read with nothing due replaces the values.
    m.databaseRead({ dueSteps: [], pendingApprovals: [] });
    const after = await text(m);
    expect(after).toMatch(/^orchestrator_due_steps 0$/m);
    expect(after).toMatch(/^orchestrator_due_steps_oldest_age_seconds 0$/m);
  });

  it('labels the readings by workspace when asked, adding those past the cap under "other"', async () => {
    const m = metrics({ METRICS_WORKSPACE_LABEL: 'true', METRICS_MAX_LABEL_VALUES: '1' });
    m.databaseRead({
      dueSteps: [
        { workspaceId: 'w1', count: 3, oldestAgeSeconds: 1 },
        { workspaceId: 'w2', count: 2, oldestAgeSeconds: 9 },
        { workspaceId: 'w3', count: 1, oldestAgeSeconds: 4 },
      ],
      pendingApprovals: [],
    });
    const out = await text(m);
    expect(out).toMatch(/^orchestrator_due_steps\{workspace="w1"\} 3$/m);
    expect(out).toMatch(/^orchestrator_due_steps\{workspace="other"\} 3$/m);
    expect(out).toMatch(/^orchestrator_due_steps_oldest_age_seconds\{workspace="other"\} 9$/m);
    // A workspace with nothing due any more has no series left.
    m.databaseRead({
      dueSteps: [{ workspaceId: 'w1', count: 1, oldestAgeSeconds: 0 }],
      pendingApprovals: [],
    });
    expect(await text(m)).not.toMatch(/workspace="other"/);
  });

  it('records nothing and collects no process metrics when disabled', async () => {
    const m = metrics({ METRICS_ENABLED: 'false' });
    m.runStarted('w', 'wf');
    m.llmCall('w', 'model', 'success', { inputTokens: 1, outputTokens: 1, costUsd: 1 });
    m.httpRequest('GET', '/live', 200, 0.001);
    const out = await text(m);
    expect(out).not.toMatch(/^orchestrator_runs_started_total\{/m);
    expect(out).not.toMatch(/^orchestrator_llm_calls_total\{/m);
    expect(out).not.toMatch(/^process_cpu/m);
  });

  it('folds unknown HTTP methods into "other"', async () => {
    const m = metrics();
    m.httpRequest('PROPFIND', '(unmatched)', 404, 0.002);
    expect(await text(m)).toMatch(
      /^orchestrator_http_request_duration_seconds_count\{method="other",route="\(unmatched\)",status="404"\} 1$/m,
    );
  });
});
