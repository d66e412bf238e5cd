import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { waitFor } from './support/wait';
import {
  createDefinition,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type Step,
} from './support/workflows';

/**
 * Every model of this file costs nothing per input token and 0.01 USD per output token, and answers
 * 10 output tokens to steps that ask for at most 10: each call costs exactly 0.1 USD, and its worst
 * case (what a budget reserves before it starts) is the same 0.1 USD, so how many calls a budget
 * lets through does not depend on timing.
 */
const MODELS = [
  'm-stop',
  'm-run',
  'm-step-a',
  'm-step-b',
  'm-tools',
  'm-race',
  'm-approve',
  'm-month',
  'm-none',
  'm-held',
];
const PRICE = { inputPerMillion: 0, outputPerMillion: 10_000 };
const CALL = { text: 'ok', inputTokens: 7, outputTokens: 10 };

const llm = (name: string, model: string, extra: Record<string, unknown> = {}): Step => ({
  type: 'llm',
  name,
  model,
  maxTokens: 10,
  messages: [{ role: 'user', content: `step ${name}` }],
  ...extra,
});

interface BudgetView {
  monthlyLimitUsd: number | null;
  spentUsd: number;
  periodStart: string;
  periodEnd: string;
}

function currentMonth(): { periodStart: string; periodEnd: string } {
  const now = new Date();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return {
    periodStart: new Date(start).toISOString(),
    periodEnd: new Date(next - 1).toISOString(),
  };
}

describe('LLM budgets', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    for (const model of MODELS) openai.script(model, CALL);
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, PRICE]))),
    });
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function getBudget(key: string): Promise<BudgetView> {
    const res = await t.http.get('/v1/workspaces/current/budget').set('x-api-key', key);
    expect(res.status).toBe(200);
    return res.body.data as BudgetView;
  }

  async function putBudget(key: string, monthlyLimitUsd: number | null): Promise<BudgetView> {
    const res = await t.http
      .put('/v1/workspaces/current/budget')
      .set('x-api-key', key)
      .send({ monthlyLimitUsd });
    expect(res.status).toBe(200);
    return res.body.data as BudgetView;
  }

  /** The workspace's recorded cost, summed exactly in SQL. */
  async function recordedSpend(workspaceId: string): Promise<number> {
    const rows = await t.sql<{ spent: string }>(
      'SELECT COALESCE(sum(cost_usd), 0)::text AS spent FROM cost_records WHERE workspace_id = $1',
      [workspaceId],
    );
    return Number(rows[0].spent);
  }

  /** The month's recorded cost as the check before each call reads it (budget_spend). */
  async function monthRollup(workspaceId: string, periodStart: string): Promise<number | null> {
    const rows = await t.sql<{ spent: string }>(
      `SELECT spent_usd::text AS spent FROM budget_spend
       WHERE workspace_id = $1 AND period_start = $2`,
      [workspaceId, periodStart],
    );
    return rows.length === 0 ? null : Number(rows[0].spent);
  }

  async function reservations(workspaceId: string) {
    return t.sql<{ step_run_id: string; amount: string }>(
      `SELECT step_run_id, amount_usd::text AS amount FROM budget_reservations
       WHERE workspace_id = $1`,
      [workspaceId],
    );
  }

  async function runToEnd(key: string, definitionId: string, status: string) {
    const runId = await startRun(t.http, key, definitionId);
    return { runId, run: await waitForRun(t.http, key, runId, status) };
  }

  describe('GET/PUT /v1/workspaces/current/budget', () => {
    it('answers no budget, sets one, changes it and removes it with null, for the current UTC month', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const month = currentMonth();
      expect(await getBudget(ws.key)).toEqual({ monthlyLimitUsd: null, spentUsd: 0, ...month });
      expect(await putBudget(ws.key, 25)).toEqual({ monthlyLimitUsd: 25, spentUsd: 0, ...month });
      expect(await getBudget(ws.key)).toEqual({ monthlyLimitUsd: 25, spentUsd: 0, ...month });
      expect((await putBudget(ws.key, 0.000001)).monthlyLimitUsd).toBe(0.000001);
      expect((await putBudget(ws.key, 1_000_000_000)).monthlyLimitUsd).toBe(1_000_000_000);
      expect((await putBudget(ws.key, 123456.789012)).monthlyLimitUsd).toBe(123456.789012);
      const rows = await t.sql<{ exact: boolean }>(
        `SELECT monthly_limit_usd = 123456.789012 AS exact FROM workspace_budgets
         WHERE workspace_id = $1`,
        [ws.workspace.id],
      );
      expect(rows).toEqual([{ exact: true }]);
      expect(await putBudget(ws.key, null)).toEqual({
        monthlyLimitUsd: null,
        spentUsd: 0,
        ...month,
      });
      expect((await getBudget(ws.key)).monthlyLimitUsd).toBeNull();
    });

    it("keeps each workspace's budget to itself", async () => {
      const a = await createWorkspaceWithKey(t.http);
      const b = await createWorkspaceWithKey(t.http);
      await putBudget(a.key, 10);
      expect((await getBudget(b.key)).monthlyLimitUsd).toBeNull();
      await putBudget(b.key, null);
      expect((await getBudget(a.key)).monthlyLimitUsd).toBe(10);
    });

    it('needs an API key', async () => {
      const get = await t.http.get('/v1/workspaces/current/budget');
      expect(get.status).toBe(401);
      const put = await t.http.put('/v1/workspaces/current/budget').send({ monthlyLimitUsd: 5 });
      expect(put.status).toBe(401);
    });

    it.each<[string, unknown, string, RegExp]>([
      ['zero', { monthlyLimitUsd: 0 }, 'monthlyLimitUsd', /greater than 0/],
      ['a negative number', { monthlyLimitUsd: -5 }, 'monthlyLimitUsd', /greater than 0/],
      ['a string', { monthlyLimitUsd: '10' }, 'monthlyLimitUsd', /number of USD/],
      ['a boolean', { monthlyLimitUsd: true }, 'monthlyLimitUsd', /number of USD/],
      ['an object', { monthlyLimitUsd: { usd: 5 } }, 'monthlyLimitUsd', /number of USD/],
      ['7 decimals', { monthlyLimitUsd: 1.0000001 }, 'monthlyLimitUsd', /6 decimal places/],
      ['a tiny amount', { monthlyLimitUsd: 1e-7 }, 'monthlyLimitUsd', /6 decimal places/],
      [
        'more than the maximum',
        { monthlyLimitUsd: 1_000_000_000.5 },
        'monthlyLimitUsd',
        /not be greater than 1000000000/,
      ],
      ['an absurd amount', { monthlyLimitUsd: 1e300 }, 'monthlyLimitUsd', /not be greater than/],
      ['no field', {}, 'monthlyLimitUsd', /number of USD/],
      ['an unknown field', { monthlyLimitUsd: 5, currency: 'EUR' }, 'currency', /not allowed/],
    ])(
      'refuses %s with 400 naming the field, changing nothing',
      async (_what, body, field, message) => {
        const ws = await createWorkspaceWithKey(t.http);
        await putBudget(ws.key, 25);
        const res = await t.http
          .put('/v1/workspaces/current/budget')
          .set('x-api-key', ws.key)
          .send(body as object);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        const errors = res.body.error.details.errors as Array<{ field: string; message: string }>;
        expect(errors).toEqual(
          expect.arrayContaining([{ field, message: expect.stringMatching(message) }]),
        );
        expect((await getBudget(ws.key)).monthlyLimitUsd).toBe(25);
      },
    );

    it('counts the recorded costs of the current month only: the figure of the cost summary for periodStart..periodEnd', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, ws.key, [llm('draft', 'm-month')]);
      const { periodStart, periodEnd } = currentMonth();
      // Three calls: one recorded in the last millisecond of last month, one in the first of this
      // month, one now.
      const lastMonth = new Date(Date.parse(periodStart) - 1);
      for (const at of [lastMonth, new Date(periodStart), null]) {
        const { runId } = await runToEnd(ws.key, definitionId, 'COMPLETED');
        if (at)
          await t.sql('UPDATE cost_records SET created_at = $1 WHERE run_id = $2', [at, runId]);
      }
      const budget = await getBudget(ws.key);
      expect(budget).toEqual({ monthlyLimitUsd: null, spentUsd: 0.2, periodStart, periodEnd });
      const summary = await t.http
        .get(
          `/v1/cost/summary?from=${encodeURIComponent(periodStart)}&to=${encodeURIComponent(periodEnd)}`,
        )
        .set('x-api-key', ws.key);
      expect(summary.body.data.totalCostUsd).toBe(budget.spentUsd);

      // Last month's 0.1 does not count against this month's budget: 0.2 + 0.1 fits 0.35 …
      await putBudget(ws.key, 0.35);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      expect((await getBudget(ws.key)).spentUsd).toBe(0.3);
      // … and the next call would not.
      const { run } = await runToEnd(ws.key, definitionId, 'FAILED');
      expect(run.error).toBe(
        'Workspace monthly LLM budget of 0.35 USD is used up (spent 0.300000 USD; this call may ' +
          'cost up to 0.100000 USD)',
      );
    });

    it('keeps counting exactly when recorded costs move out of the month after its first check', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      await putBudget(ws.key, 0.35);
      const definitionId = await createDefinition(t.http, ws.key, [llm('draft', 'm-month')]);
      const { periodStart } = currentMonth();
      const runs: string[] = [];
      for (let i = 0; i < 3; i++)
        runs.push((await runToEnd(ws.key, definitionId, 'COMPLETED')).runId);
      await runToEnd(ws.key, definitionId, 'FAILED');
      expect(await monthRollup(ws.workspace.id, periodStart)).toBe(0.3);

      // One call moves to last month, one to the first millisecond of this one.
      const lastMonth = new Date(Date.parse(periodStart) - 1);
      await t.sql('UPDATE cost_records SET created_at = $1 WHERE run_id = $2', [
        lastMonth,
        runs[0],
      ]);
      await t.sql('UPDATE cost_records SET created_at = $1 WHERE run_id = $2', [
        new Date(periodStart),
        runs[1],
      ]);
      expect((await getBudget(ws.key)).spentUsd).toBe(0.2);
      expect(await monthRollup(ws.workspace.id, periodStart)).toBe(0.2);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      await runToEnd(ws.key, definitionId, 'FAILED');
      expect((await getBudget(ws.key)).spentUsd).toBe(0.3);
      expect(await monthRollup(ws.workspace.id, periodStart)).toBe(0.3);
    });
  });

  describe('definitions', () => {
    it('answers maxCostUsd and onBudgetExceeded when given, and leaves them out otherwise', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const withBudget = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({
          name: 'budgeted',
          version: '1',
          maxCostUsd: 0.25,
          onBudgetExceeded: 'approval',
          steps: [llm('draft', 'm-run', { maxCostUsd: 0.1, onBudgetExceeded: 'fail' })],
        });
      expect(withBudget.status).toBe(201);
      expect(withBudget.body.data).toMatchObject({
        maxCostUsd: 0.25,
        onBudgetExceeded: 'approval',
        steps: [expect.objectContaining({ maxCostUsd: 0.1, onBudgetExceeded: 'fail' })],
      });
      const read = await t.http
        .get(`/v1/workflow-definitions/${withBudget.body.data.id}`)
        .set('x-api-key', ws.key);
      expect(read.body.data).toEqual(withBudget.body.data);
      const plain = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({ name: 'plain', version: '1', steps: [llm('draft', 'm-run')] });
      expect(plain.body.data).not.toHaveProperty('maxCostUsd');
      expect(plain.body.data).not.toHaveProperty('onBudgetExceeded');
    });

    it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
      ['zero', { maxCostUsd: 0 }, {}, 'maxCostUsd'],
      ['a negative amount', { maxCostUsd: -1 }, {}, 'maxCostUsd'],
      ['a string', { maxCostUsd: '0.5' }, {}, 'maxCostUsd'],
      ['7 decimals', { maxCostUsd: 0.0000001 }, {}, 'maxCostUsd'],
      ['an absurd amount', { maxCostUsd: 5e9 }, {}, 'maxCostUsd'],
      ['an unknown policy', { onBudgetExceeded: 'pause' }, {}, 'onBudgetExceeded'],
      ['zero on the step', {}, { maxCostUsd: 0 }, 'steps[0].maxCostUsd'],
      ['7 decimals on the step', {}, { maxCostUsd: 1.0000001 }, 'steps[0].maxCostUsd'],
      ['a string on the step', {}, { maxCostUsd: '1' }, 'steps[0].maxCostUsd'],
      ['an absurd amount on the step', {}, { maxCostUsd: 1e12 }, 'steps[0].maxCostUsd'],
      [
        'an unknown policy on the step',
        {},
        { onBudgetExceeded: 'ask' },
        'steps[0].onBudgetExceeded',
      ],
    ])('refuses %s with 400 naming the field', async (_what, top, onStep, field) => {
      const ws = await createWorkspaceWithKey(t.http);
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({ name: 'bad', version: '1', steps: [llm('draft', 'm-run', onStep)], ...top });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toContain(field);
      const list = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      expect(list.body.data).toEqual([]);
    });

    it('refuses budget fields on steps other than llm', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({
          name: 'bad',
          version: '1',
          steps: [{ type: 'task', name: 'n', handler: 'noop', maxCostUsd: 1 }],
        });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'steps[0].maxCostUsd', message: 'is not allowed' },
      ]);
    });
  });

  describe('enforcement', () => {
    it('stops the call that would overspend the workspace budget: BUDGET_EXCEEDED, a failure naming the budget, no retry', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      await putBudget(ws.key, 0.25);
      const definitionId = await createDefinition(t.http, ws.key, [llm('draft', 'm-stop')]);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      const { runId, run } = await runToEnd(ws.key, definitionId, 'FAILED');

      expect(run.error).toBe(
        'Workspace monthly LLM budget of 0.25 USD is used up (spent 0.200000 USD; this call may ' +
          'cost up to 0.100000 USD)',
      );
      expect(openai.requestsFor('m-stop')).toHaveLength(2);
      expect(await recordedSpend(ws.workspace.id)).toBe(0.2);
      expect((await getBudget(ws.key)).spentUsd).toBe(0.2);

      const events = await runEvents(t.http, ws.key, runId);
      expect(events.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'BUDGET_EXCEEDED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      expect(events[2].payload).toEqual({
        stepName: 'draft',
        model: 'm-stop',
        budget: 'workspace',
        limitUsd: 0.25,
        spentUsd: 0.2,
        reservedUsd: 0,
        callCostUpToUsd: 0.1,
        onBudgetExceeded: 'fail',
      });
      expect(events[2].stepRunId).toBe(events[1].stepRunId);
      expect(events[3].payload).toMatchObject({ attempt: 1, error: run.error });

      // Raising the budget lets the next call start at once; removing it lifts every check.
      await putBudget(ws.key, 0.3);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      await runToEnd(ws.key, definitionId, 'FAILED');
      await putBudget(ws.key, null);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      expect(openai.requestsFor('m-stop')).toHaveLength(4);
      expect(await reservations(ws.workspace.id)).toEqual([]);
    });

    it("stops the call that would overspend the run's maxCostUsd, per run", async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(
        t.http,
        ws.key,
        [llm('one', 'm-run'), llm('two', 'm-run'), llm('three', 'm-run')],
        { maxCostUsd: 0.25 },
      );
      const first = await runToEnd(ws.key, definitionId, 'FAILED');
      expect(first.run.error).toBe(
        'Run budget maxCostUsd 0.25 USD is used up (spent 0.200000 USD; this call may cost up to ' +
          '0.100000 USD)',
      );
      expect(first.run.currentStepIndex).toBe(2);
      const exceeded = (await runEvents(t.http, ws.key, first.runId)).find(
        (e) => e.eventType === 'BUDGET_EXCEEDED',
      );
      expect(exceeded?.payload).toMatchObject({
        stepName: 'three',
        budget: 'run',
        limitUsd: 0.25,
        spentUsd: 0.2,
      });
      // The next run has a budget of its own.
      await runToEnd(ws.key, definitionId, 'FAILED');
      expect(openai.requestsFor('m-run')).toHaveLength(4);
      const cost = await t.http
        .get(`/v1/workflow-runs/${first.runId}/cost`)
        .set('x-api-key', ws.key);
      expect(cost.body.data.totalCostUsd).toBe(0.2);
    });

    it("counts fallbacks against the step's maxCostUsd, the calls not yet recorded included", async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, ws.key, [
        llm('draft', 'm-step-a', {
          fallbackModels: ['m-step-b'],
          maxCostUsd: 0.15,
          // The primary's answer breaks the guardrail: billed, then the fallback would be next.
          guardrails: { requiredPatterns: ['^never$'] },
        }),
      ]);
      const { runId, run } = await runToEnd(ws.key, definitionId, 'FAILED');
      expect(run.error).toBe(
        'Step budget maxCostUsd 0.15 USD of step "draft" is used up (spent 0.000000 USD, ' +
          '0.100000 USD reserved by calls in flight; this call may cost up to 0.100000 USD)',
      );
      expect(openai.requestsFor('m-step-a')).toHaveLength(1);
      expect(openai.requestsFor('m-step-b')).toHaveLength(0);
      const types = (await runEvents(t.http, ws.key, runId)).map((e) => e.eventType);
      expect(types).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'LLM_CALL_STARTED',
        'LLM_CALL_COMPLETED',
        'GUARDRAIL_TRIGGERED',
        'LLM_FALLBACK_TRIGGERED',
        'BUDGET_EXCEEDED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      // The primary's call is recorded with the failure.
      expect(await recordedSpend(ws.workspace.id)).toBe(0.1);
    });

    it('checks the budget before every tool round trip of a call', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      openai.script(
        'm-tools',
        {
          toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }],
          inputTokens: 7,
          outputTokens: 10,
        },
        CALL,
      );
      const definitionId = await createDefinition(t.http, ws.key, [
        llm('agent', 'm-tools', {
          maxCostUsd: 0.15,
          tools: [{ name: 'lookup', handler: 'noop', parameters: { type: 'object' } }],
        }),
      ]);
      const { runId, run } = await runToEnd(ws.key, definitionId, 'FAILED');
      const message =
        'Step budget maxCostUsd 0.15 USD of step "agent" is used up (spent 0.000000 USD, ' +
        '0.100000 USD reserved by calls in flight; this call may cost up to 0.100000 USD)';
      expect(run.error).toBe(message);
      expect(openai.requestsFor('m-tools')).toHaveLength(1);
      const events = await runEvents(t.http, ws.key, runId);
      expect(events.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'LLM_CALL_STARTED',
        'TOOL_CALL_EXECUTED',
        'LLM_CALL_FAILED',
        'BUDGET_EXCEEDED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      expect(events[4].payload).toMatchObject({ model: 'm-tools', error: message, costUsd: 0.1 });
      expect(await recordedSpend(ws.workspace.id)).toBe(0.1);
    });

    it('lets ten runs racing for a budget of about three calls spend it exactly once', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      await putBudget(ws.key, 0.35);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // Every call is held in flight until all the runs have been refused or have reached the
      // provider: the three that fit are in flight together with the seven that do not.
      openai.script('m-race', { ...CALL, until: held });
      const definitionId = await createDefinition(t.http, ws.key, [llm('draft', 'm-race')]);
      const runIds = await Promise.all(
        Array.from({ length: 10 }, () => startRun(t.http, ws.key, definitionId)),
      );
      await waitFor('seven runs refused', async () => {
        const runs = await Promise.all(runIds.map((id) => getRun(t.http, ws.key, id)));
        return runs.filter((r) => r.status === 'FAILED').length === 7 ? true : undefined;
      });
      expect(openai.requestsFor('m-race')).toHaveLength(3);
      // While the three are in flight, their reservations hold the budget.
      expect((await reservations(ws.workspace.id)).map((r) => r.amount).sort()).toEqual([
        '0.1',
        '0.1',
        '0.1',
      ]);
      release();
      const runs = await Promise.all(
        runIds.map((id) => waitForRun(t.http, ws.key, id, ['COMPLETED', 'FAILED'])),
      );
      expect(runs.filter((r) => r.status === 'COMPLETED')).toHaveLength(3);
      const failed = runs.filter((r) => r.status === 'FAILED');
      expect(failed).toHaveLength(7);
      for (const r of failed) {
        expect(r.error).toMatch(/^Workspace monthly LLM budget of 0\.35 USD is used up \(spent /);
      }
      expect(openai.requestsFor('m-race')).toHaveLength(3);
      const spent = await t.sql<{ within: boolean; exact: boolean }>(
        `SELECT sum(cost_usd) <= 0.35 AS within, sum(cost_usd) = 0.3 AS exact FROM cost_records
         WHERE workspace_id = $1`,
        [ws.workspace.id],
      );
      expect(spent).toEqual([{ within: true, exact: true }]);
      expect(await monthRollup(ws.workspace.id, currentMonth().periodStart)).toBe(0.3);
      expect(await reservations(ws.workspace.id)).toEqual([]);
    });

    it('pauses on an approval request with onBudgetExceeded "approval": approving lets the step go on, rejecting fails it', async () => {
      const ws: WorkspaceWithKey = await createWorkspaceWithKey(t.http);
      await putBudget(ws.key, 0.15);
      const definitionId = await createDefinition(
        t.http,
        ws.key,
        [llm('draft', 'm-approve'), { type: 'task', name: 'after', handler: 'noop' }],
        { onBudgetExceeded: 'approval' },
      );
      await runToEnd(ws.key, definitionId, 'COMPLETED');

      // The second run is over the budget: it pauses on a request saying which budget and how much.
      const approved = await runToEnd(ws.key, definitionId, 'PAUSED');
      const message =
        'Workspace monthly LLM budget of 0.15 USD is used up (spent 0.100000 USD; this call may ' +
        'cost up to 0.100000 USD)';
      const pending = await t.http
        .get('/v1/approval-requests?pending=true')
        .set('x-api-key', ws.key);
      expect(pending.body.data).toHaveLength(1);
      const request = pending.body.data[0];
      expect(request).toMatchObject({
        workflowRunId: approved.runId,
        stepName: 'draft',
        contentKey: '$budget',
        content: {
          budget: 'workspace',
          limitUsd: 0.15,
          spentUsd: 0.1,
          reservedUsd: 0,
          callCostUpToUsd: 0.1,
          stepName: 'draft',
          model: 'm-approve',
          message,
        },
        prompt: expect.stringContaining(message),
        decision: null,
      });
      expect(openai.requestsFor('m-approve')).toHaveLength(1);
      const decided = await t.http
        .post(`/v1/approval-requests/${request.id}/decide`)
        .set('x-api-key', ws.key)
        .send({ decision: 'approved', comment: 'worth it' });
      expect(decided.status).toBe(200);
      const resumed = await waitForRun(t.http, ws.key, approved.runId, 'COMPLETED');
      expect(resumed.output).toMatchObject({ draft: { text: 'ok', costUsd: 0.1 }, after: {} });
      expect(openai.requestsFor('m-approve')).toHaveLength(2);
      expect((await getBudget(ws.key)).spentUsd).toBe(0.2);
      const types = (await runEvents(t.http, ws.key, approved.runId)).map((e) => e.eventType);
      expect(types).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'BUDGET_EXCEEDED',
        'APPROVAL_REQUESTED',
        'APPROVAL_DECIDED',
        'LLM_CALL_STARTED',
        'LLM_CALL_COMPLETED',
        'STEP_COMPLETED',
        'STEP_STARTED',
        'STEP_COMPLETED',
        'WORKFLOW_COMPLETED',
      ]);

      // A later run asks again; rejected, its step fails with the budget's message.
      const rejected = await runToEnd(ws.key, definitionId, 'PAUSED');
      const second = await t.http
        .get('/v1/approval-requests?pending=true')
        .set('x-api-key', ws.key);
      await t.http
        .post(`/v1/approval-requests/${second.body.data[0].id}/decide`)
        .set('x-api-key', ws.key)
        .send({ decision: 'rejected', comment: 'not this month' });
      const failed = await waitForRun(t.http, ws.key, rejected.runId, 'FAILED');
      expect(failed.error).toBe(
        'Workspace monthly LLM budget of 0.15 USD is used up (spent 0.200000 USD; this call may ' +
          `cost up to 0.100000 USD); rejected by api-key:${ws.keyId}: not this month`,
      );
      expect(openai.requestsFor('m-approve')).toHaveLength(2);
      const events = await runEvents(t.http, ws.key, rejected.runId);
      expect(events.map((e) => e.eventType)).not.toContain('STEP_RETRYING');

      // The step's own onBudgetExceeded wins over the definition's.
      const strict = await createDefinition(
        t.http,
        ws.key,
        [llm('draft', 'm-approve', { onBudgetExceeded: 'fail' })],
        { onBudgetExceeded: 'approval' },
      );
      const strictRun = await runToEnd(ws.key, strict, 'FAILED');
      expect(strictRun.run.error).toMatch(/^Workspace monthly LLM budget of 0\.15 USD is used up/);
    });
  });

  describe('workspaces without a budget', () => {
    it('make no reservation, while a budgeted call in flight holds one', async () => {
      const free = await createWorkspaceWithKey(t.http);
      const budgeted = await createWorkspaceWithKey(t.http);
      await putBudget(budgeted.key, 100);
      const definitions = await Promise.all(
        [free, budgeted].map((ws) => createDefinition(t.http, ws.key, [llm('draft', 'm-held')])),
      );

      for (const [i, ws] of [free, budgeted].entries()) {
        let release!: () => void;
        openai.script('m-held', { ...CALL, until: new Promise<void>((r) => (release = r)) });
        const before = openai.requestsFor('m-held').length;
        const runId = await startRun(t.http, ws.key, definitions[i]);
        await waitFor('the call to reach the provider', () =>
          openai.requestsFor('m-held').length > before ? true : undefined,
        );
        const held = await reservations(ws.workspace.id);
        if (ws === free) {
          expect(held).toEqual([]);
        } else {
          const [step] = await t.sql<{ id: string }>(
            `SELECT id FROM step_runs WHERE run_id = $1 AND status = 'RUNNING'`,
            [runId],
          );
          expect(held).toEqual([{ step_run_id: step.id, amount: '0.1' }]);
        }
        release();
        await waitForRun(t.http, ws.key, runId, 'COMPLETED');
        expect(await reservations(ws.workspace.id)).toEqual([]);
      }
    });

    it('count their calls in flight once a budget is set: the month stays exact', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, ws.key, [llm('draft', 'm-held')]);
      let release!: () => void;
      openai.script('m-held', { ...CALL, until: new Promise<void>((r) => (release = r)) });
      const before = openai.requestsFor('m-held').length;
      const early = await startRun(t.http, ws.key, definitionId);
      await waitFor('the call to reach the provider', () =>
        openai.requestsFor('m-held').length > before ? true : undefined,
      );
      // The budget comes while that call, started without one, is in flight; the next call seeds
      // the month's figure before the early call's cost is recorded.
      await putBudget(ws.key, 0.25);
      openai.script('m-held', CALL);
      await runToEnd(ws.key, definitionId, 'COMPLETED');
      const { periodStart } = currentMonth();
      expect(await monthRollup(ws.workspace.id, periodStart)).toBe(0.1);
      release();
      await waitForRun(t.http, ws.key, early, 'COMPLETED');
      expect(await monthRollup(ws.workspace.id, periodStart)).toBe(0.2);
      expect((await getBudget(ws.key)).spentUsd).toBe(0.2);
      await runToEnd(ws.key, definitionId, 'FAILED');
    });

    it("run as before, whatever other workspaces' budgets", async () => {
      const over = await createWorkspaceWithKey(t.http);
      await putBudget(over.key, 0.05);
      const free = await createWorkspaceWithKey(t.http);
      const overDefinition = await createDefinition(t.http, over.key, [llm('draft', 'm-none')]);
      await runToEnd(over.key, overDefinition, 'FAILED');
      const freeDefinition = await createDefinition(t.http, free.key, [
        llm('one', 'm-none'),
        llm('two', 'm-none'),
      ]);
      const { runId } = await runToEnd(free.key, freeDefinition, 'COMPLETED');
      const types = (await runEvents(t.http, free.key, runId)).map((e) => e.eventType);
      expect(types).not.toContain('BUDGET_EXCEEDED');
      expect(await getBudget(free.key)).toMatchObject({ monthlyLimitUsd: null, spentUsd: 0.2 });
    });
  });
});
