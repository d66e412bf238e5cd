import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { parseExposition, type Exposition } from './support/prometheus';
import { checkedAgent } from './support/openapi-check';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import { freePort, startExecutorProcess, type ServiceProcess } from './support/service-process';
import { startTcpProxy } from './support/tcp-proxy';
import { createDefinition, eventually, startRun, waitForRun } from './support/workflows';

async function scrape(t: { http: TestAgent }): Promise<Exposition> {
  const res = await t.http.get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

const PRICING = { 'metered-model': { inputPerMillion: 2, outputPerMillion: 10 } };

describe('Prometheus metrics', () => {
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    await openai.close();
    await anthropic.close();
    await receiver.close();
  });

  describe('after a workflow with a task, an LLM call, an approval and webhook deliveries', () => {
    // A service process, so that it trusts the receiver's certificate (NODE_EXTRA_CA_CERTS).
    const started: ServiceProcess[] = [];
    let t: { http: TestAgent };
    let m: Exposition;
    let workflow: string;
    let runId: string;

    beforeAll(async () => {
      const service = await startExecutorProcess(await createTestDatabase(), started, {
        ...fakeLlmEnv(openai, anthropic),
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        LLM_PRICING_JSON: JSON.stringify(PRICING),
        WEBHOOK_RETRY_DELAYS_MS: '0',
        METRICS_DATABASE_REFRESH_MS: '1000',
        EXECUTOR_CONCURRENCY: '4',
      });
      t = { http: checkedAgent(service.baseUrl) };
      const { key } = await createWorkspaceWithKey(t.http);
      const closed = await freePort();
      const urls = [
        receiver.route('/metrics-ok'),
        receiver.route('/metrics-fails', () => ({ status: 500 })),
        receiver.route('/metrics-gone', () => ({ status: 410 })),
        `https://127.0.0.1:${closed}/`,
      ];
      for (const url of urls) {
        const hook = await t.http
          .post('/v1/webhooks')
          .set('x-api-key', key)
          .send({ url, events: ['workflow.completed'] });
        expect(hook.status).toBe(201);
      }

      openai.script('metered-model', { text: 'a draft', inputTokens: 1200, outputTokens: 300 });
      const definitionId = await createDefinition(t.http, key, [
        { type: 'task', name: 'prepare', handler: 'noop' },
        {
          type: 'llm',
          name: 'draft',
          model: 'metered-model',
          messages: [{ role: 'user', content: 'write' }],
        },
        { type: 'approval', name: 'review', contentKey: 'draft.text', prompt: 'ok?' },
      ]);
      workflow = (
        await t.http.get(`/v1/workflow-definitions/${definitionId}`).set('x-api-key', key)
      ).body.data.name as string;
      runId = await startRun(t.http, key, definitionId);
      await waitForRun(t.http, key, runId, 'PAUSED');

      // The pending approval shows once the database-backed gauges are read again (every second).
      const pending = await eventually(
        async () => {
          const now = await scrape(t);
          return now.value('orchestrator_approvals_pending') === 1 && now;
        },
        10_000,
        'approvals_pending = 1',
      );
      expect(pending.value('orchestrator_executor_slots_in_use')).toBe(0);

      const requests = await t.http.get('/v1/approval-requests?pending=true').set('x-api-key', key);
      const decided = await t.http
        .post(`/v1/approval-requests/${requests.body.data[0].id}/decide`)
        .set('x-api-key', key)
        .send({ decision: 'approved' });
      expect(decided.status).toBe(200);
      await waitForRun(t.http, key, runId, 'COMPLETED');
      await t.http.get('/v1/no-such-route').set('x-api-key', key).expect(404);
      m = await eventually(
        async () => {
          const now = await scrape(t);
          const sent = now.all('orchestrator_webhook_deliveries_total');
          return sent.reduce((n, s) => n + s.value, 0) === 4 &&
            now.value('orchestrator_approvals_pending') === 0
            ? now
            : undefined;
        },
        20_000,
        'four webhook deliveries and no pending approval',
      );
    });

    afterAll(() => started.forEach((s) => s.kill()));

    it('counts the run started and finished, and its duration, by definition name', () => {
      expect(m.value('orchestrator_runs_started_total', { workflow })).toBe(1);
      expect(m.value('orchestrator_runs_finished_total', { workflow, status: 'completed' })).toBe(
        1,
      );
      expect(
        m.value('orchestrator_run_duration_seconds_count', { workflow, status: 'completed' }),
      ).toBe(1);
      const seconds = m.value('orchestrator_run_duration_seconds_sum', {
        workflow,
        status: 'completed',
      })!;
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(120);
      expect(m.types.get('orchestrator_runs_started_total')).toBe('counter');
      expect(m.types.get('orchestrator_run_duration_seconds')).toBe('histogram');
    });

    it('times each step execution by type and outcome, and the wait to be claimed', () => {
      const count = (step_type: string, outcome: string) =>
        m.value('orchestrator_step_duration_seconds_count', { step_type, outcome });
      expect(count('task', 'completed')).toBe(1);
      expect(count('llm', 'completed')).toBe(1);
      // The approval step executes twice: it parks the run, then the decision completes it.
      expect(count('approval', 'paused')).toBe(1);
      expect(count('approval', 'completed')).toBe(1);
      // The first step was claimed; the decision queues the approval step to be claimed again.
      const claimed = m.all('orchestrator_step_claim_delay_seconds_count');
      expect(claimed.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(1);
      expect(m.value('orchestrator_step_claim_delay_seconds_count', { step_type: 'task' })).toBe(1);
    });

    it('counts LLM calls, tokens and their cost by model', () => {
      const model = 'metered-model';
      expect(m.value('orchestrator_llm_calls_total', { model, outcome: 'success' })).toBe(1);
      expect(m.value('orchestrator_llm_tokens_total', { model, direction: 'input' })).toBe(1200);
      expect(m.value('orchestrator_llm_tokens_total', { model, direction: 'output' })).toBe(300);
      // 1200 * 2 / 1e6 + 300 * 10 / 1e6
      expect(m.value('orchestrator_llm_cost_usd_total', { model })).toBeCloseTo(0.0054, 10);
    });

    it('counts webhook deliveries by outcome', () => {
      const sent = (outcome: string) =>
        m.value('orchestrator_webhook_deliveries_total', { outcome });
      expect([sent('2xx'), sent('4xx'), sent('5xx'), sent('network')]).toEqual([1, 1, 1, 1]);
    });

    it('times HTTP requests by method, route template and status, never the raw URL', () => {
      const http = (method: string, route: string, status: string) =>
        m.value('orchestrator_http_request_duration_seconds_count', { method, route, status });
      expect(http('POST', '/v1/workflow-runs', '201')).toBe(1);
      expect(http('GET', '/v1/workflow-runs/:id', '200')).toBeGreaterThanOrEqual(2);
      expect(http('POST', '/v1/approval-requests/:id/decide', '200')).toBe(1);
      expect(http('GET', '(unmatched)', '404')).toBe(1);
      const routes = new Set(
        m.all('orchestrator_http_request_duration_seconds_count').map((s) => s.labels.route),
      );
      for (const route of routes) expect(route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      // No label anywhere carries a run id.
      expect(m.samples.some((s) => Object.values(s.labels).includes(runId))).toBe(false);
    });

    it('reports executor slots, the database-backed gauges and when they were read', () => {
      expect(m.value('orchestrator_executor_slots')).toBe(4);
      expect(m.value('orchestrator_executor_slots_in_use')).toBe(0);
      expect(m.value('orchestrator_due_steps')).toBe(0);
      expect(m.value('orchestrator_due_steps_oldest_age_seconds')).toBe(0);
      expect(m.value('orchestrator_approvals_pending')).toBe(0);
      const refreshed = m.value('orchestrator_database_gauges_refreshed_timestamp_seconds')!;
      expect(Math.abs(refreshed - Date.now() / 1000)).toBeLessThan(30);
    });

    it('includes the Node process and event-loop metrics', () => {
      expect(m.types.get('process_cpu_user_seconds_total')).toBe('counter');
      expect(m.types.get('nodejs_eventloop_lag_p99_seconds')).toBe('gauge');
      expect(m.types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    });

    it('is public: no API key, no envelope', async () => {
      const res = await t.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('# TYPE orchestrator_due_steps gauge');
    });
  });

  it('the backlog gauge rises with due steps while no executor runs, and falls when one starts', async () => {
    const databaseUrl = await createTestDatabase();
    const api = await createTestApp(
      { EXECUTOR_ENABLED: 'false', METRICS_DATABASE_REFRESH_MS: '1000' },
      { databaseUrl },
    );
    let executor: TestApp | undefined;
    try {
      const { key } = await createWorkspaceWithKey(api.http);
      const definitionId = await createDefinition(api.http, key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await startRun(api.http, key, definitionId));
      const backlog = await eventually(
        async () => {
          const now = await scrape(api);
          return now.value('orchestrator_due_steps') === 3 && now;
        },
        10_000,
        'due_steps = 3',
      );
      expect(backlog.value('orchestrator_executor_slots')).toBe(0);
      await eventually(
        async () => {
          const now = await scrape(api);
          return now.value('orchestrator_due_steps_oldest_age_seconds')! > 0.5;
        },
        10_000,
        'the oldest due step to age',
      );

      executor = await createTestApp({ METRICS_DATABASE_REFRESH_MS: '1000' }, { databaseUrl });
      for (const id of runs) await waitForRun(api.http, key, id, 'COMPLETED');
      const drained = await eventually(
        async () => {
          const now = await scrape(api);
          return now.value('orchestrator_due_steps') === 0 && now;
        },
        10_000,
        'due_steps = 0',
      );
      expect(drained.value('orchestrator_due_steps_oldest_age_seconds')).toBe(0);
    } finally {
      await executor?.close();
      await api.close();
    }
  });

  it('keeps the last database-backed values and answers every scrape while the database is away', async () => {
    const server = new URL(process.env.WF_TEST_SERVER_URL!);
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const databaseUrl = proxy.through(await createTestDatabase());
    const t = await createTestApp(
      {
        EXECUTOR_ENABLED: 'false',
        METRICS_DATABASE_REFRESH_MS: '1000',
        DATABASE_CONNECT_TIMEOUT_MS: '500',
      },
      { databaseUrl },
    );
    try {
      const { key } = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      await startRun(t.http, key, definitionId);
      const before = await eventually(
        async () => {
          const now = await scrape(t);
          return now.value('orchestrator_due_steps') === 1 && now;
        },
        10_000,
        'due_steps = 1',
      );
      await proxy.cut('silence');
      const refreshedBefore = before.value(
        'orchestrator_database_gauges_refreshed_timestamp_seconds',
      )!;
      // Several refresh periods pass with the database silent: every scrape answers at once.
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 800));
        const started = Date.now();
        const now = await scrape(t);
        expect(Date.now() - started).toBeLessThan(1000);
        expect(now.value('orchestrator_due_steps')).toBe(1);
      }
      const during = await scrape(t);
      const stale = during.value('orchestrator_database_gauges_refreshed_timestamp_seconds')!;
      expect(Date.now() / 1000 - stale).toBeGreaterThan(2);
      expect(stale).toBeGreaterThanOrEqual(refreshedBefore);
      await proxy.restore();
      await eventually(
        async () => {
          const now = await scrape(t);
          const at = now.value('orchestrator_database_gauges_refreshed_timestamp_seconds')!;
          return Date.now() / 1000 - at < 2;
        },
        15_000,
        'a fresh read after the database is back',
      );
    } finally {
      await proxy.restore().catch(() => undefined);
      await t.close();
      await proxy.close();
    }
  });

  it('serves /metrics on METRICS_PORT instead of the API port when set', async () => {
    const port = await freePort();
    const t = await createTestApp({ METRICS_PORT: String(port), EXECUTOR_ENABLED: 'false' });
    try {
      await t.http.get('/metrics').expect(404);
      const res = await request(`http://127.0.0.1:${port}`).get('/metrics');
      expect(res.status).toBe(200);
      expect(parseExposition(res.text).types.get('orchestrator_due_steps')).toBe('gauge');
      const other = await request(`http://127.0.0.1:${port}`).get('/v1/workspaces/current');
      expect(other.status).toBe(404);
      expect(other.body.success).toBe(false);
      await request(`http://127.0.0.1:${port}`).post('/metrics').expect(405);
    } finally {
      await t.close();
    }
    // The port is closed with the application.
    await expect(request(`http://127.0.0.1:${port}`).get('/metrics')).rejects.toThrow();
  });

  it('serves no /metrics with METRICS_ENABLED=false', async () => {
    const t = await createTestApp({ METRICS_ENABLED: 'false', EXECUTOR_ENABLED: 'false' });
    try {
      await t.http.get('/metrics').expect(404);
    } finally {
      await t.close();
    }
  });

  it('bounds tenant-chosen label values and adds the workspace label only when asked', async () => {
    const t = await createTestApp({
      METRICS_MAX_LABEL_VALUES: '2',
      METRICS_WORKSPACE_LABEL: 'true',
      EXECUTOR_ENABLED: 'false',
    });
    try {
      const { key, workspace } = await createWorkspaceWithKey(t.http);
      const names: string[] = [];
      for (let i = 0; i < 4; i++) {
        const id = await createDefinition(t.http, key, [
          { type: 'task', name: 'only', handler: 'noop' },
        ]);
        names.push(
          (await t.http.get(`/v1/workflow-definitions/${id}`).set('x-api-key', key)).body.data
            .name as string,
        );
        await startRun(t.http, key, id);
      }
      const m = await scrape(t);
      const started = m.all('orchestrator_runs_started_total');
      expect(started.map((s) => s.labels.workflow).sort()).toEqual(
        [names[0], names[1], 'other'].sort(),
      );
      expect(m.value('orchestrator_runs_started_total', { workflow: 'other' })).toBe(2);
      expect(started.every((s) => s.labels.workspace === workspace.id)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
