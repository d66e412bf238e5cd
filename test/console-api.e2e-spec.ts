import type { Response as TestResponse } from 'supertest';
import type {
  ApprovalCount,
  ApprovalRequest,
  CostByDefinition,
  CostSeries,
  CostSummary,
  Envelope,
  Page,
  Run,
} from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { createDefinition, eventually, startRun, waitForRun, type Step } from './support/workflows';

/**
 * The read endpoints the console needs beside the contract's (issue 14): cost over time and by
 * definition, a creation-time window on the runs list, one approval request, the pending count and an
 * oldest-first approval list.
 */
const PRICING = {
  'cheap-model': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'openai:premium-model': { inputPerMillion: 3, outputPerMillion: 15 },
};

const llmStep = (name: string, model: string): Step => ({
  type: 'llm',
  name,
  model,
  messages: [{ role: 'user', content: `step ${name}` }],
});

const review: Step[] = [
  { type: 'approval', name: 'review', contentKey: 'draft', prompt: 'Publish this?' },
];

function fieldsOf(res: TestResponse): string[] {
  const body = res.body as { error?: { details?: { errors?: { field: string }[] } } };
  return (body.error?.details?.errors ?? []).map((e) => e.field);
}

function expectBadInput(res: TestResponse, field: string): void {
  expect({
    status: res.status,
    code: (res.body as { error?: { code: string } }).error?.code,
  }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  expect(fieldsOf(res)).toContain(field);
}

describe('console read endpoints', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
      COST_SERIES_MAX_BUCKETS: '48',
    });
    openai.script('cheap-model', { text: 'x', inputTokens: 1000, outputTokens: 1000 });
    openai.script('premium-model', { text: 'y', inputTokens: 2000, outputTokens: 500 });
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function completedRun(key: string, definitionId: string): Promise<string> {
    const runId = await startRun(t.http, key, definitionId);
    await waitForRun(t.http, key, runId, 'COMPLETED');
    return runId;
  }

  describe('cost over time and by definition', () => {
    let ws: WorkspaceWithKey;
    let drafting: string;
    let polishing: string;

    beforeAll(async () => {
      ws = await createWorkspaceWithKey(t.http);
      drafting = await createDefinition(t.http, ws.key, [
        llmStep('a', 'cheap-model'),
        llmStep('b', 'cheap-model'),
      ]);
      polishing = await createDefinition(t.http, ws.key, [
        llmStep('a', 'cheap-model'),
        llmStep('b', 'openai:premium-model'),
      ]);
      await completedRun(ws.key, drafting);
      await completedRun(ws.key, drafting);
      await completedRun(ws.key, polishing);
      // A run without LLM calls has no cost, so no entry.
      const quiet = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      await completedRun(ws.key, quiet);
    });

    async function get<T>(path: string, query: Record<string, string> = {}, key = ws.key) {
      const res = await t.http.get(path).query(query).set('x-api-key', key);
      return { res, data: (res.body as Envelope<T>).data };
    }

    it('answers cost by UTC day and model, by default over the last 30 days', async () => {
      const { res, data } = await get<CostSeries>('/v1/cost/timeseries');
      expect(res.status).toBe(200);
      expect(data.workspaceId).toBe(ws.workspace.id);
      expect(data.bucket).toBe('day');
      expect(Date.parse(data.to) - Date.parse(data.from)).toBe(30 * 86_400_000);
      for (const point of data.points) expect(point.start).toMatch(/T00:00:00\.000Z$/);
      const sorted = [...data.points].sort(
        (x, y) => x.start.localeCompare(y.start) || x.model.localeCompare(y.model),
      );
      expect(data.points).toEqual(sorted);
      // 5 cheap calls of 1000/1000 tokens, 1 premium call of 2000/500.
      const byModel = (model: string) => data.points.filter((p) => p.model === model);
      expect(byModel('cheap-model').reduce((n, p) => n + p.calls, 0)).toBe(5);
      expect(byModel('openai:premium-model').reduce((n, p) => n + p.calls, 0)).toBe(1);
    });

    it('adds up exactly to the summary of the same window, by the day and by the hour', async () => {
      for (const bucket of ['day', 'hour']) {
        const to = new Date().toISOString();
        const from = new Date(Date.now() - 24 * 3600_000).toISOString();
        const series = await get<CostSeries>('/v1/cost/timeseries', { from, to, bucket });
        expect(series.res.status).toBe(200);
        expect(series.data).toMatchObject({ from, to, bucket });
        if (bucket === 'hour') {
          for (const point of series.data.points) expect(point.start).toMatch(/:00:00\.000Z$/);
        }
        const summary = await get<CostSummary>('/v1/cost/summary', { from, to });
        const sums = new Map<
          string,
          { cost: number; input: number; output: number; calls: number }
        >();
        for (const p of series.data.points) {
          const s = sums.get(p.model) ?? { cost: 0, input: 0, output: 0, calls: 0 };
          sums.set(p.model, {
            cost: s.cost + p.costUsd,
            input: s.input + p.inputTokens,
            output: s.output + p.outputTokens,
            calls: s.calls + p.calls,
          });
        }
        expect([...sums.keys()].sort()).toEqual(summary.data.byModel.map((m) => m.model).sort());
        for (const m of summary.data.byModel) {
          const s = sums.get(m.model)!;
          expect({ input: s.input, output: s.output, calls: s.calls }).toEqual({
            input: m.inputTokens,
            output: m.outputTokens,
            calls: m.calls,
          });
          // Each bucket's sum is exact (numeric in SQL); only adding buckets here is floating point.
          expect(s.cost).toBeCloseTo(m.costUsd, 12);
        }
        expect(summary.data.totalInputTokens).toBe(5 * 1000 + 2000);
      }
    });

    it('leaves out buckets without calls', async () => {
      const { data } = await get<CostSeries>('/v1/cost/timeseries', {
        from: '2024-01-01',
        to: '2024-01-20',
      });
      expect(data).toMatchObject({
        from: '2024-01-01T00:00:00.000Z',
        to: '2024-01-20T00:00:00.000Z',
        points: [],
      });
    });

    it('answers cost by definition version, most expensive first, with distinct runs', async () => {
      const { res, data } = await get<CostByDefinition>('/v1/cost/by-definition');
      expect(res.status).toBe(200);
      expect(data.from).toBe('1970-01-01T00:00:00.000Z');
      // drafting: 2 runs x 2 cheap calls = 4 x 0.00075 = 0.003
      // polishing: 1 cheap call 0.00075 + 1 premium call (2000 x 3 + 500 x 15) / 1e6 = 0.0135
      expect(data.definitions).toEqual([
        {
          definitionId: polishing,
          name: expect.any(String) as string,
          version: '1',
          costUsd: 0.01425,
          inputTokens: 3000,
          outputTokens: 1500,
          calls: 2,
          runs: 1,
        },
        {
          definitionId: drafting,
          name: expect.any(String) as string,
          version: '1',
          costUsd: 0.003,
          inputTokens: 4000,
          outputTokens: 4000,
          calls: 4,
          runs: 2,
        },
      ]);
      const summary = await get<CostSummary>('/v1/cost/summary', { from: data.from, to: data.to });
      expect(summary.data.totalCostUsd).toBe(0.01725);
      const none = await get<CostByDefinition>('/v1/cost/by-definition', { to: '2024-01-01' });
      expect(none.data.definitions).toEqual([]);
    });

    it("never shows another workspace's costs", async () => {
      const other = await createWorkspaceWithKey(t.http);
      const series = await get<CostSeries>('/v1/cost/timeseries', {}, other.key);
      expect(series.data).toMatchObject({ workspaceId: other.workspace.id, points: [] });
      const defs = await get<CostByDefinition>('/v1/cost/by-definition', {}, other.key);
      expect(defs.data).toMatchObject({ workspaceId: other.workspace.id, definitions: [] });
    });

    it('answers 400 naming the parameter for bad input', async () => {
      const series: Array<[Record<string, string>, string]> = [
        [{ bucket: 'week' }, 'bucket'],
        [{ from: 'yesterday' }, 'from'],
        [{ to: '2024-13-01T00:00:00Z' }, 'to'],
        [{ to: '2024-01-01T10:00:00' }, 'to'],
        [{ from: '2024-06-01T00:00:00Z', to: '2024-01-01T00:00:00Z' }, 'from'],
        // from must be before to (an empty window has no bucket).
        [{ from: '2024-06-01T00:00:00Z', to: '2024-06-01T00:00:00Z' }, 'from'],
        // COST_SERIES_MAX_BUCKETS is 48 here: 49 days, or 49 hours.
        [{ from: '2024-01-01', to: '2024-02-18' }, 'from'],
        [{ from: '2024-01-01T00:00:00Z', to: '2024-01-03T00:00:00Z', bucket: 'hour' }, 'from'],
        // The default window is 30 days: 721 hours.
        [{ bucket: 'hour' }, 'from'],
        [{ since: '2024-01-01' }, 'since'],
      ];
      for (const [query, field] of series) {
        expectBadInput((await get('/v1/cost/timeseries', query)).res, field);
      }
      // Exactly 48 buckets are fine.
      const full = await get<CostSeries>('/v1/cost/timeseries', {
        from: '2024-01-01',
        to: '2024-02-17T23:59:59.999Z',
      });
      expect(full.res.status).toBe(200);
      const byDefinition: Array<[Record<string, string>, string]> = [
        [{ from: 'last week' }, 'from'],
        [{ to: '1700000000' }, 'to'],
        [{ from: '2024-06-01T00:00:00Z', to: '2024-01-01T00:00:00Z' }, 'from'],
        [{ bucket: 'day' }, 'bucket'],
      ];
      for (const [query, field] of byDefinition) {
        expectBadInput((await get('/v1/cost/by-definition', query)).res, field);
      }
      for (const path of ['/v1/cost/timeseries', '/v1/cost/by-definition']) {
        expect((await t.http.get(path)).status).toBe(401);
      }
    });
  });

  describe('runs list: createdFrom and createdTo', () => {
    it('lists the runs created in [createdFrom, createdTo)', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const def = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await startRun(t.http, ws.key, def));
        // Runs made in one millisecond could not be told apart by a bound with milliseconds.
        const made = Date.now();
        await eventually(async () => Date.now() > made);
      }
      const list = async (query: Record<string, string>) => {
        const res = await t.http.get('/v1/workflow-runs').query(query).set('x-api-key', ws.key);
        return { res, body: res.body as Page<Run> };
      };
      const all = (await list({})).body.data;
      const created = new Map(all.map((r) => [r.id, r.createdAt]));
      const [first, second, third] = ids;
      const window = await list({
        createdFrom: created.get(second)!,
        createdTo: created.get(third)!,
      });
      expect(window.res.status).toBe(200);
      expect(window.body.data.map((r) => r.id)).toEqual([second]);
      expect(window.body.meta.total).toBe(1);
      const since = await list({ createdFrom: created.get(second)! });
      expect(since.body.data.map((r) => r.id)).toEqual([third, second]);
      const until = await list({ createdTo: created.get(second)! });
      expect(until.body.data.map((r) => r.id)).toEqual([first]);
      for (const id of ids) await waitForRun(t.http, ws.key, id, 'COMPLETED');
      const completed = await list({ createdTo: created.get(third)!, status: 'COMPLETED' });
      expect(completed.body.data.map((r) => r.id)).toEqual([second, first]);
      const failed = await list({ createdTo: created.get(third)!, status: 'FAILED' });
      expect(failed.body.data).toEqual([]);
      const zoned = await list({
        createdFrom: '2000-01-01',
        createdTo: '2000-01-02T00:00:00+02:00',
      });
      expect(zoned.body.data).toEqual([]);
    });

    it('answers 400 naming the field for a bad window', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const cases: Array<[Record<string, string>, string]> = [
        [{ createdFrom: 'yesterday' }, 'createdFrom'],
        [{ createdTo: '2024-02-30' }, 'createdTo'],
        [{ createdTo: '2024-01-01T10:00:00' }, 'createdTo'],
        [{ createdFrom: '2024-06-01', createdTo: '2024-01-01' }, 'createdFrom'],
        [{ createdFrom: '2024-06-01', createdTo: '2024-06-01T00:00:00Z' }, 'createdFrom'],
      ];
      for (const [query, field] of cases) {
        const res = await t.http.get('/v1/workflow-runs').query(query).set('x-api-key', ws.key);
        expectBadInput(res, field);
      }
    });
  });

  describe('approval requests: one, the pending count, oldest first', () => {
    let ws: WorkspaceWithKey;
    /** Request ids in the order they were created. */
    let requests: ApprovalRequest[];

    beforeAll(async () => {
      ws = await createWorkspaceWithKey(t.http);
      const def = await createDefinition(t.http, ws.key, review);
      requests = [];
      for (let i = 0; i < 5; i++) {
        const runId = await startRun(t.http, ws.key, def, { draft: { i } });
        await waitForRun(t.http, ws.key, runId, 'PAUSED');
        requests.push(
          await eventually(async () => {
            const res = await t.http
              .get('/v1/approval-requests?pending=true')
              .set('x-api-key', ws.key);
            return (res.body as Envelope<ApprovalRequest[]>).data.find(
              (r) => r.workflowRunId === runId,
            );
          }),
        );
      }
    });

    async function count(key: string): Promise<number> {
      const res = await t.http.get('/v1/approval-requests/count').set('x-api-key', key);
      expect(res.status).toBe(200);
      return (res.body as Envelope<ApprovalCount>).data.pending;
    }

    it('answers one request by id, and 404 for unknown or foreign ones', async () => {
      const res = await t.http
        .get(`/v1/approval-requests/${requests[2].id}`)
        .set('x-api-key', ws.key);
      expect(res.status).toBe(200);
      expect((res.body as Envelope<ApprovalRequest>).data).toEqual(requests[2]);
      const other = await createWorkspaceWithKey(t.http);
      for (const [id, key] of [
        [requests[2].id, other.key],
        ['00000000-0000-7000-8000-000000000000', ws.key],
        ['not-a-uuid', ws.key],
      ]) {
        const missing = await t.http.get(`/v1/approval-requests/${id}`).set('x-api-key', key);
        expect(missing.status).toBe(404);
        expect((missing.body as { error: { code: string } }).error.code).toBe('NOT_FOUND');
      }
      expect(await count(other.key)).toBe(0);
    });

    it('counts the pending requests, fewer after a decision', async () => {
      expect(await count(ws.key)).toBe(5);
      const decided = await t.http
        .post(`/v1/approval-requests/${requests[4].id}/decide`)
        .set('x-api-key', ws.key)
        .send({ decision: 'approved' });
      expect(decided.status).toBe(200);
      expect(await count(ws.key)).toBe(4);
      const one = await t.http
        .get(`/v1/approval-requests/${requests[4].id}`)
        .set('x-api-key', ws.key);
      expect((one.body as Envelope<ApprovalRequest>).data).toMatchObject({
        decision: 'approved',
        decidedBy: `api-key:${ws.keyId}`,
      });
      expect((await t.http.get('/v1/approval-requests/count')).status).toBe(401);
    });

    it('lists oldest first with order=oldest, newest first by default', async () => {
      const list = async (query: string) => {
        const res = await t.http.get(`/v1/approval-requests${query}`).set('x-api-key', ws.key);
        expect(res.status).toBe(200);
        return (res.body as Envelope<ApprovalRequest[]>).data.map((r) => r.id);
      };
      const ids = requests.map((r) => r.id);
      expect(await list('?order=oldest')).toEqual(ids);
      expect(await list('')).toEqual([...ids].reverse());
      expect(await list('?order=newest')).toEqual([...ids].reverse());
      expect(await list('?order=oldest&pending=true')).toEqual(ids.slice(0, 4));
      expect(await list(`?order=oldest&after=${ids[1]}`)).toEqual(ids.slice(2));
    });

    it('cuts an oldest-first answer with a Link that continues after the last id', async () => {
      const small = await createTestApp(
        { APPROVAL_LIST_MAX_ITEMS: '2', EXECUTOR_ENABLED: 'false' },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const seen: string[] = [];
        let next: string | undefined = '/v1/approval-requests?order=oldest';
        const links: string[] = [];
        while (next) {
          const res = await small.http.get(next).set('x-api-key', ws.key);
          expect(res.status).toBe(200);
          seen.push(...(res.body as Envelope<ApprovalRequest[]>).data.map((r) => r.id));
          const link = res.headers.link as string | undefined;
          next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
          if (link) links.push(link);
        }
        expect(seen).toEqual(requests.map((r) => r.id));
        expect(links[0]).toBe(
          `</v1/approval-requests?order=oldest&after=${requests[1].id}>; rel="next"`,
        );
        const newest = await small.http.get('/v1/approval-requests').set('x-api-key', ws.key);
        expect(newest.headers.link).toBe(
          `</v1/approval-requests?before=${requests[3].id}>; rel="next"`,
        );
      } finally {
        await small.close();
      }
    });

    it('answers 400 naming the parameter for a bad order or a cursor of the other order', async () => {
      const cases: Array<[string, string]> = [
        ['?order=sideways', 'order'],
        [`?after=${requests[0].id}`, 'after'],
        [`?order=newest&after=${requests[0].id}`, 'after'],
        [`?order=oldest&before=${requests[0].id}`, 'before'],
        ['?order=oldest&after=not-a-uuid', 'after'],
        ['?order=oldest&after=00000000-0000-7000-8000-000000000000', 'after'],
      ];
      for (const [query, field] of cases) {
        const res = await t.http.get(`/v1/approval-requests${query}`).set('x-api-key', ws.key);
        expectBadInput(res, field);
      }
    });
  });
});
