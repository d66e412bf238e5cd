import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import {
  createDefinition,
  eventually,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type Step,
} from './support/workflows';

const PRICING = { 'cheap-model': { inputPerMillion: 1, outputPerMillion: 2 } };

const double: Step = {
  type: 'task',
  name: 'double',
  handler: 'transform',
  config: { expression: '{"doubled": n * 2}' },
};
const awaitGo: Step = { type: 'external_event', name: 'await-go', signalType: 'go' };
const broken: Step = { type: 'task', name: 'broken', handler: 'not.registered' };

const child = (definitionId: string, extra: Record<string, unknown> = {}): Step => ({
  type: 'workflow',
  name: 'child',
  definitionId,
  ...extra,
});

describe('workflow steps (child runs)', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
      WORKFLOW_MAX_DEPTH: '2',
    });
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function children(key: string, parentRunId: string) {
    const res = await t.http
      .get(`/v1/workflow-runs?parentRunId=${parentRunId}&pageSize=100`)
      .set('x-api-key', key);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: string; status: string; createdAt: string }>).sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt),
    );
  }

  async function postDefinition(key: string, body: Record<string, unknown>) {
    return t.http
      .post('/v1/workflow-definitions')
      .set('x-api-key', key)
      .send({ name: `wf-${Math.random().toString(16).slice(2, 10)}`, version: '1', ...body });
  }

  it("passes the templated input to the child and takes the child's output as the step's", async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const childId = await createDefinition(t.http, key, [double]);
    const parentId = await createDefinition(t.http, key, [
      child(childId, { input: { n: '{{x}}' }, outputKey: 'result' }),
    ]);
    const runId = await startRun(t.http, key, parentId, { x: 21 });
    const run = await waitForRun(t.http, key, runId, 'COMPLETED');
    expect(run.output).toEqual({ x: 21, result: { n: 21, double: { doubled: 42 } } });
    expect(run.parentRunId).toBeNull();

    const [kid] = await children(key, runId);
    const kidRun = await getRun(t.http, key, kid.id);
    expect(kidRun).toMatchObject({
      status: 'COMPLETED',
      definitionId: childId,
      parentRunId: runId,
      input: { n: 21 },
    });
    const steps = await t.http.get(`/v1/workflow-runs/${runId}/steps`).set('x-api-key', key);
    expect(kidRun.parentStepRunId).toBe(steps.body.data[0].id);

    const events = (await runEvents(t.http, key, runId)).map((e) => [e.eventType, e.payload]);
    expect(events).toEqual([
      ['WORKFLOW_STARTED', {}],
      ['STEP_STARTED', { stepName: 'child', stepType: 'workflow', attempt: 1 }],
      [
        'CHILD_RUN_STARTED',
        { stepName: 'child', childRunId: kid.id, definitionId: childId, waitForCompletion: true },
      ],
      ['CHILD_RUN_FINISHED', { stepName: 'child', childRunId: kid.id, status: 'COMPLETED' }],
      ['STEP_COMPLETED', { stepName: 'child', durationMs: expect.any(Number) }],
      ['WORKFLOW_COMPLETED', {}],
    ]);
  });

  it('starts a child by name and version and goes on at once without waitForCompletion', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const named = await postDefinition(key, { steps: [awaitGo] });
    expect(named.status).toBe(201);
    const parentId = await createDefinition(t.http, key, [
      {
        type: 'workflow',
        name: 'fire',
        definitionName: named.body.data.name,
        version: '1',
        waitForCompletion: false,
      },
    ]);
    const runId = await startRun(t.http, key, parentId);
    const run = await waitForRun(t.http, key, runId, 'COMPLETED');
    const [kid] = await children(key, runId);
    expect(run.output).toEqual({ fire: { childRunId: kid.id } });
    // The child still waits for its signal; it ends on its own.
    await waitForRun(t.http, key, kid.id, 'WAITING');
    const resumed = await t.http
      .post(`/v1/workflow-runs/${kid.id}/resume`)
      .set('x-api-key', key)
      .send({ signalType: 'go' });
    expect(resumed.status).toBe(200);
    await waitForRun(t.http, key, kid.id, 'COMPLETED');
    expect((await getRun(t.http, key, runId)).status).toBe('COMPLETED');
  });

  it('cancels the whole tree below a cancelled run, and a run waiting for a child refuses resume', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const leafId = await createDefinition(t.http, key, [awaitGo]);
    const middleId = await createDefinition(t.http, key, [child(leafId)]);
    const rootId = await createDefinition(t.http, key, [child(middleId)]);
    const root = await startRun(t.http, key, rootId);
    const middle = await eventually(async () => (await children(key, root))[0], 20_000, 'child');
    const leaf = await eventually(async () => (await children(key, middle.id))[0], 20_000, 'leaf');
    await waitForRun(t.http, key, leaf.id, 'WAITING');
    await waitForRun(t.http, key, root, 'WAITING');

    const resume = await t.http
      .post(`/v1/workflow-runs/${root}/resume`)
      .set('x-api-key', key)
      .send({ signalType: 'go' });
    expect(resume.status).toBe(409);

    const cancel = await t.http.post(`/v1/workflow-runs/${root}/cancel`).set('x-api-key', key);
    expect(cancel.status).toBe(200);
    for (const id of [root, middle.id, leaf.id]) {
      expect((await getRun(t.http, key, id)).status).toBe('CANCELLED');
      const types = (await runEvents(t.http, key, id)).map((e) => e.eventType);
      expect(types[types.length - 1]).toBe('WORKFLOW_CANCELLED');
    }
  });

  it("fails the parent's step when its child is cancelled", async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const leafId = await createDefinition(t.http, key, [awaitGo]);
    const parentId = await createDefinition(t.http, key, [child(leafId)]);
    const runId = await startRun(t.http, key, parentId);
    const kid = await eventually(async () => (await children(key, runId))[0], 20_000, 'child');
    await waitForRun(t.http, key, kid.id, 'WAITING');
    const cancel = await t.http.post(`/v1/workflow-runs/${kid.id}/cancel`).set('x-api-key', key);
    expect(cancel.status).toBe(200);
    const run = await waitForRun(t.http, key, runId, 'FAILED');
    expect(run.error).toBe(`child run ${kid.id} was cancelled`);
  });

  it("fails the step when the child fails, retries it with a new child, and a manual retry starts another", async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const failingId = await createDefinition(t.http, key, [broken]);
    const parentId = await createDefinition(t.http, key, [
      child(failingId, { retry: { maxAttempts: 2, initialDelayMs: 0 } }),
    ]);
    const runId = await startRun(t.http, key, parentId);
    const run = await waitForRun(t.http, key, runId, 'FAILED');
    const kids = await children(key, runId);
    expect(kids.map((k) => k.status)).toEqual(['FAILED', 'FAILED']);
    expect(run.error).toBe(`child run ${kids[1].id} failed: unknown task handler "not.registered"`);
    const types = (await runEvents(t.http, key, runId)).map((e) => e.eventType);
    expect(types.filter((e) => e === 'CHILD_RUN_STARTED')).toHaveLength(2);
    expect(types).toContain('STEP_RETRYING');

    const retry = await t.http.post(`/v1/workflow-runs/${runId}/retry`).set('x-api-key', key);
    expect(retry.status).toBe(200);
    await waitForRun(t.http, key, runId, 'FAILED');
    await eventually(async () => (await children(key, runId)).length === 4, 20_000, '4 children');
  });

  it("shows each child's LLM calls in the parent's cost and counts every call once in the summary", async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    openai.script('cheap-model', { text: 'ok', inputTokens: 1000, outputTokens: 500 });
    const llm = (name: string): Step => ({
      type: 'llm',
      name,
      model: 'cheap-model',
      messages: [{ role: 'user', content: name }],
    });
    const childId = await createDefinition(t.http, key, [llm('summarise')]);
    const parentId = await createDefinition(t.http, key, [llm('plan'), child(childId)]);
    const runId = await startRun(t.http, key, parentId);
    await waitForRun(t.http, key, runId, 'COMPLETED');
    const [kid] = await children(key, runId);

    const res = await t.http.get(`/v1/workflow-runs/${runId}/cost`).set('x-api-key', key);
    expect(res.status).toBe(200);
    const cost = res.body.data;
    // 1000 * 1 / 1e6 + 500 * 2 / 1e6 = 0.002 per call.
    expect(cost).toMatchObject({
      workflowRunId: runId,
      totalCostUsd: 0.002,
      totalInputTokens: 1000,
      totalOutputTokens: 500,
      totalWithChildrenCostUsd: 0.004,
      totalWithChildrenInputTokens: 2000,
      totalWithChildrenOutputTokens: 1000,
    });
    expect(cost.calls.map((c: { stepName: string }) => c.stepName)).toEqual(['plan']);
    expect(cost.childRuns).toEqual([
      {
        workflowRunId: kid.id,
        parentRunId: runId,
        totalCostUsd: 0.002,
        totalInputTokens: 1000,
        totalOutputTokens: 500,
        calls: [expect.objectContaining({ stepName: 'summarise', costUsd: 0.002 })],
      },
    ]);
    const childCost = await t.http.get(`/v1/workflow-runs/${kid.id}/cost`).set('x-api-key', key);
    expect(childCost.body.data).toMatchObject({ totalCostUsd: 0.002, childRuns: [] });
    const summary = await t.http.get('/v1/cost/summary').set('x-api-key', key);
    expect(summary.body.data).toMatchObject({ totalCostUsd: 0.004, totalRuns: 2 });
  });

  it('refuses at definition time what cannot run: unknown, foreign or self targets, too deep, bad fields', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const other = await createWorkspaceWithKey(t.http);
    const foreignId = await createDefinition(t.http, other.key, [double]);
    const leafId = await createDefinition(t.http, key, [double]);
    const level1 = await createDefinition(t.http, key, [child(leafId)]);
    const level2 = await createDefinition(t.http, key, [child(level1)]);

    const cases: Array<[Step, string, RegExp]> = [
      [child('00000000-0000-4000-8000-000000000000'), 'steps[0].definitionId', /no such/],
      [child(foreignId), 'steps[0].definitionId', /no such/],
      [child(level2), 'steps[0].definitionId', /3 deep.*WORKFLOW_MAX_DEPTH/],
      [
        { type: 'workflow', name: 'c', definitionName: 'self', version: '1' },
        'steps[0].definitionName',
        /would recurse/,
      ],
      [{ type: 'workflow', name: 'c' }, 'steps[0].definitionId', /either definitionId/],
      [
        { type: 'workflow', name: 'c', definitionName: 'x' },
        'steps[0].version',
        /required with definitionName/,
      ],
      [child(leafId, { timeoutMs: 1000 }), 'steps[0].timeoutMs', /not supported/],
      [child('not-a-uuid'), 'steps[0].definitionId', /UUID/],
      [child(leafId, { waitForCompletion: 'yes' }), 'steps[0].waitForCompletion', /boolean/],
    ];
    for (const [step, field, message] of cases) {
      const res = await postDefinition(key, { name: 'self', steps: [step] });
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      const errors = res.body.error.details.errors as Array<{ field: string; message: string }>;
      expect(errors.find((e) => e.field === field)?.message).toMatch(message);
    }
  });

  it('fails the step at run time past the depth cap or on a cycle, with a clear message', async () => {
    // Definitions made under a higher cap (an API-only process on the same database), run under 2.
    const deep = await createTestApp(
      { WORKFLOW_MAX_DEPTH: '5', EXECUTOR_ENABLED: 'false' },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const { key } = await createWorkspaceWithKey(deep.http);
      const leafId = await createDefinition(deep.http, key, [double]);
      const l1 = await createDefinition(deep.http, key, [child(leafId)]);
      const l2 = await createDefinition(deep.http, key, [child(l1)]);
      const rootId = await createDefinition(deep.http, key, [child(l2)]);
      const root = await startRun(t.http, key, rootId);
      const run = await waitForRun(t.http, key, root, 'FAILED');
      expect(run.error).toMatch(/^child run .* failed: child run .* failed: /);
      const [c1] = await children(key, root);
      const [c2] = await children(key, c1.id);
      expect((await getRun(t.http, key, c2.id)).error).toBe(
        'child run would be nested 3 deep, past the limit of 2 (WORKFLOW_MAX_DEPTH)',
      );

      // A cycle cannot be written through the API (a target must exist first): made in the table.
      const loopId = await createDefinition(deep.http, key, [double]);
      await t.sql(`UPDATE workflow_definitions SET steps = $2 WHERE id = $1`, [
        loopId,
        JSON.stringify([child(loopId)]),
      ]);
      const loop = await waitForRun(t.http, key, await startRun(t.http, key, loopId), 'FAILED');
      expect(loop.error).toBe(
        `definition ${loopId} would recurse: it is already running in this run's lineage`,
      );
      expect(await children(key, loop.id)).toEqual([]);
    } finally {
      await deep.close();
    }
  });

  it("keeps child runs in their workspace: another workspace neither lists nor reads them", async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const other = await createWorkspaceWithKey(t.http);
    const childId = await createDefinition(t.http, key, [double]);
    const parentId = await createDefinition(t.http, key, [child(childId, { input: { n: 1 } })]);
    const runId = await startRun(t.http, key, parentId);
    await waitForRun(t.http, key, runId, 'COMPLETED');
    const [kid] = await children(key, runId);
    expect((await getRun(t.http, key, kid.id)).workspaceId).toBe(
      (await getRun(t.http, key, runId)).workspaceId,
    );
    expect(await children(other.key, runId)).toEqual([]);
    const read = await t.http.get(`/v1/workflow-runs/${kid.id}`).set('x-api-key', other.key);
    expect(read.status).toBe(404);
    const malformed = await t.http
      .get('/v1/workflow-runs?parentRunId=nope')
      .set('x-api-key', key);
    expect(malformed.status).toBe(200);
    expect(malformed.body.data).toEqual([]);
  });
});
