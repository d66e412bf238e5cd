import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { createDefinition, runEvents, startRun, waitForRun, type Step } from './support/workflows';

/** Prices of the models these tests use (USD per million tokens), given through LLM_PRICING_JSON. */
const PRICING = {
  'cheap-model': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'openai:premium-model': { inputPerMillion: 3, outputPerMillion: 15 },
  'penny-model': { inputPerMillion: 1, outputPerMillion: 0 },
};

interface CallView {
  stepName: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
}

const llmStep = (name: string, model: string, extra: Record<string, unknown> = {}): Step => ({
  type: 'llm',
  name,
  model,
  messages: [{ role: 'user', content: `step ${name}` }],
  ...extra,
});

describe('costs', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
    });
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function completedRun(key: string, steps: Step[]): Promise<string> {
    const definitionId = await createDefinition(t.http, key, steps);
    const runId = await startRun(t.http, key, definitionId);
    await waitForRun(t.http, key, runId, 'COMPLETED');
    return runId;
  }

  async function runCost(key: string, runId: string) {
    const res = await t.http.get(`/v1/workflow-runs/${runId}/cost`).set('x-api-key', key);
    expect(res.status).toBe(200);
    return res.body.data as {
      workflowRunId: string;
      totalCostUsd: number;
      totalInputTokens: number;
      totalOutputTokens: number;
      calls: CallView[];
    };
  }

  it('records the exact cost of every call from known token counts and prices', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    openai.script('cheap-model', { text: 'draft', inputTokens: 1234, outputTokens: 567 });
    openai.script('premium-model', { text: 'polished', inputTokens: 2000, outputTokens: 1000 });
    anthropic.script('claude-haiku-4-5-20251001', {
      text: 'summary',
      inputTokens: 100,
      outputTokens: 40,
    });
    const runId = await completedRun(key, [
      llmStep('draft', 'cheap-model'),
      llmStep('polish', 'openai:premium-model'),
      llmStep('summarise', 'anthropic:claude-haiku-4-5-20251001'),
    ]);

    const cost = await runCost(key, runId);
    // 1234 * 0.15 / 1e6 + 567 * 0.6 / 1e6 = 0.0001851 + 0.0003402
    // 2000 * 3 / 1e6 + 1000 * 15 / 1e6 = 0.006 + 0.015
    // built-in price of claude-haiku-4-5 (1 / 5): 100 / 1e6 + 40 * 5 / 1e6 = 0.0001 + 0.0002
    expect(cost).toEqual({
      workflowRunId: runId,
      totalCostUsd: 0.0218253,
      totalInputTokens: 3334,
      totalOutputTokens: 1607,
      calls: [
        {
          stepName: 'draft',
          model: 'cheap-model',
          inputTokens: 1234,
          outputTokens: 567,
          costUsd: 0.0005253,
          createdAt: expect.any(String),
        },
        {
          stepName: 'polish',
          model: 'openai:premium-model',
          inputTokens: 2000,
          outputTokens: 1000,
          costUsd: 0.021,
          createdAt: expect.any(String),
        },
        {
          stepName: 'summarise',
          model: 'anthropic:claude-haiku-4-5-20251001',
          inputTokens: 100,
          outputTokens: 40,
          costUsd: 0.0003,
          createdAt: expect.any(String),
        },
      ],
      childRuns: [],
      totalWithChildrenCostUsd: 0.0218253,
      totalWithChildrenInputTokens: 3334,
      totalWithChildrenOutputTokens: 1607,
    });
    // Stored as exact numerics, not floating point.
    const rows = await t.sql<{ exact: boolean }>(
      `SELECT sum(cost_usd) = 0.0218253 AS exact FROM cost_records WHERE run_id = $1`,
      [runId],
    );
    expect(rows[0].exact).toBe(true);
    // The events and the step output carry the same figures.
    const completed = (await runEvents(t.http, key, runId)).filter(
      (e) => e.eventType === 'LLM_CALL_COMPLETED',
    );
    expect(completed.map((e) => e.payload.costUsd)).toEqual([0.0005253, 0.021, 0.0003]);
  });

  it('sums calls exactly where floating point would not (0.0001 + 0.0002)', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    openai.script('penny-model', { text: 'a', inputTokens: 100, outputTokens: 0 });
    const first = await completedRun(key, [llmStep('one', 'penny-model')]);
    openai.script('penny-model', { text: 'b', inputTokens: 200, outputTokens: 0 });
    const second = await completedRun(key, [llmStep('two', 'penny-model')]);
    expect((await runCost(key, first)).totalCostUsd).toBe(0.0001);
    expect((await runCost(key, second)).totalCostUsd).toBe(0.0002);
    expect(0.0001 + 0.0002).not.toBe(0.0003);
    const summary = await t.http.get('/v1/cost/summary').set('x-api-key', key);
    expect(summary.body.data.totalCostUsd).toBe(0.0003);
  });

  it('records calls of models without a price at cost 0', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    openai.script('llama3.1:8b', { text: 'local', inputTokens: 500, outputTokens: 50 });
    const runId = await completedRun(key, [llmStep('local', 'llama3.1:8b')]);
    const cost = await runCost(key, runId);
    expect(cost.totalCostUsd).toBe(0);
    expect(cost.calls).toEqual([
      expect.objectContaining({
        model: 'llama3.1:8b',
        inputTokens: 500,
        outputTokens: 50,
        costUsd: 0,
      }),
    ]);
  });

  it('answers an empty cost for a run without LLM calls', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const runId = await completedRun(key, [{ type: 'task', name: 'nothing', handler: 'noop' }]);
    expect(await runCost(key, runId)).toEqual({
      workflowRunId: runId,
      totalCostUsd: 0,
      totalInputTokens: 0,
      totalOutputTokens: 0,
      calls: [],
      childRuns: [],
      totalWithChildrenCostUsd: 0,
      totalWithChildrenInputTokens: 0,
      totalWithChildrenOutputTokens: 0,
    });
  });

  it("answers 404 for the cost of another workspace's run and of an unknown run", async () => {
    const owner = await createWorkspaceWithKey(t.http);
    const other = await createWorkspaceWithKey(t.http);
    const runId = await completedRun(owner.key, [{ type: 'task', name: 'n', handler: 'noop' }]);
    for (const [key, id] of [
      [other.key, runId],
      [owner.key, '00000000-0000-4000-8000-000000000000'],
      [owner.key, 'not-a-uuid'],
    ]) {
      const res = await t.http.get(`/v1/workflow-runs/${id}/cost`).set('x-api-key', key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('summarises the workspace by window, with byModel most expensive first and distinct runs', async () => {
    const { key, workspace } = await createWorkspaceWithKey(t.http);
    openai.script('cheap-model', { text: 'x', inputTokens: 1000, outputTokens: 1000 });
    openai.script('premium-model', { text: 'y', inputTokens: 1000, outputTokens: 1000 });
    const before = new Date();
    const first = await completedRun(key, [
      llmStep('a', 'cheap-model'),
      llmStep('b', 'openai:premium-model'),
    ]);
    const second = await completedRun(key, [
      llmStep('c', 'cheap-model'),
      llmStep('d', 'cheap-model'),
    ]);
    const secondCalls = (await runCost(key, second)).calls;

    const all = await t.http.get('/v1/cost/summary').set('x-api-key', key);
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({
      workspaceId: workspace.id,
      from: '1970-01-01T00:00:00.000Z',
      to: expect.any(String),
      // cheap: 3 calls * (0.00015 + 0.0006); premium: 0.003 + 0.015
      totalCostUsd: 0.02025,
      totalInputTokens: 4000,
      totalOutputTokens: 4000,
      totalRuns: 2,
      byModel: [
        {
          model: 'openai:premium-model',
          costUsd: 0.018,
          inputTokens: 1000,
          outputTokens: 1000,
          calls: 1,
        },
        { model: 'cheap-model', costUsd: 0.00225, inputTokens: 3000, outputTokens: 3000, calls: 3 },
      ],
    });
    const to = Date.parse(all.body.data.to);
    expect(to).toBeGreaterThanOrEqual(before.getTime());
    expect(to).toBeLessThanOrEqual(Date.now());

    // Both bounds are inclusive: from = the second run's first call leaves only that run.
    const from = secondCalls[0].createdAt;
    const window = await t.http
      .get('/v1/cost/summary')
      .query({ from, to: secondCalls[1].createdAt })
      .set('x-api-key', key);
    expect(window.body.data).toMatchObject({
      from,
      to: secondCalls[1].createdAt,
      totalCostUsd: 0.0015,
      totalRuns: 1,
      byModel: [{ model: 'cheap-model', calls: 2 }],
    });

    const empty = await t.http
      .get('/v1/cost/summary')
      .query({ to: new Date(before.getTime() - 1000).toISOString() })
      .set('x-api-key', key);
    expect(empty.body.data).toMatchObject({
      totalCostUsd: 0,
      totalInputTokens: 0,
      totalOutputTokens: 0,
      totalRuns: 0,
      byModel: [],
    });

    const elsewhere = await createWorkspaceWithKey(t.http);
    const foreign = await t.http.get('/v1/cost/summary').set('x-api-key', elsewhere.key);
    expect(foreign.body.data).toMatchObject({ totalRuns: 0, totalCostUsd: 0 });
    expect(first).not.toBe(second);
  });

  it('accepts dates and zoned timestamps for from and to', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const res = await t.http
      .get('/v1/cost/summary')
      .query({ from: '2024-01-01', to: '2024-06-30T12:00:00+02:00' })
      .set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      from: '2024-01-01T00:00:00.000Z',
      to: '2024-06-30T10:00:00.000Z',
    });
  });

  it('answers 400 for from or to that is not ISO 8601, and for from after to', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const cases: Array<[Record<string, string>, string]> = [
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2024-13-01T00:00:00Z' }, 'to'],
      [{ from: '2024-02-30' }, 'from'],
      [{ to: '2024-01-01T10:00:00' }, 'to'],
      [{ from: '1700000000' }, 'from'],
      [{ from: '2024-06-01T00:00:00Z', to: '2024-01-01T00:00:00Z' }, 'from'],
      [{ since: '2024-01-01' }, 'since'],
    ];
    for (const [query, field] of cases) {
      const res = await t.http.get('/v1/cost/summary').query(query).set('x-api-key', key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('documents the cost and approval endpoints in the OpenAPI document', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { responses: object }>>;
    expect(Object.keys(paths['/v1/workflow-runs/{id}/cost'].get.responses)).toEqual(
      expect.arrayContaining(['200', '401', '404']),
    );
    expect(Object.keys(paths['/v1/cost/summary'].get.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401']),
    );
    expect(paths['/v1/approval-requests'].get).toBeDefined();
    expect(Object.keys(paths['/v1/approval-requests/{id}/decide'].post.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '409']),
    );
  });

  it('requires an API key', async () => {
    const res = await t.http.get('/v1/cost/summary');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_ERROR');
  });
});
