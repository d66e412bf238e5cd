import { createTestApp, type TestApp } from './support/app';
import { createScopedKey, createWorkspaceWithKey } from './support/factories';
import { createDefinition, startRun } from './support/workflows';

/**
 * GET one run and the run list send the runs as PostgreSQL writes them (runJson, JsonData), every
 * other answer as toRunDto writes them: the two must read a run the same, field for field.
 */
describe('runs written by the database', () => {
  /** No executor: the runs stay as they were created, so the create's answer is still current. */
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ EXECUTOR_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads each run in GET one and in the list exactly as the create answered it', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const definitionId = await createDefinition(t.http, key, [
      { type: 'wait', name: 'w', durationMs: 60_000 },
    ]);
    const inputs: Array<Record<string, unknown>> = [
      {},
      {
        text: 'line\nbreak "quoted" \\ back\tslash é 漢字 😀 \u2028',
        numbers: [0, -1, 1.5, 1e-7, 2 ** 53 - 1, 1e21, 0.1 + 0.2],
        nested: { a: [true, false, null, { b: [] }], empty: {} },
      },
    ];
    const created: Array<Record<string, unknown>> = [];
    for (const [i, input] of inputs.entries()) {
      for (const idempotencyKey of [undefined, `run-json-${i}-${Date.now()}`]) {
        const res = await t.http
          .post('/v1/workflow-runs')
          .set('x-api-key', key)
          .send({ definitionId, input, ...(idempotencyKey ? { idempotencyKey } : {}) });
        expect(res.status).toBe(201);
        created.push(res.body.data);
      }
    }
    // A buffered signal, read back with the run.
    const runId = created[0].id as string;
    const signal = await t.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', key)
      .send({ signalType: 'note', payload: { ok: 'ünïcode' } });
    expect(signal.status).toBe(202);

    for (const run of created) {
      const one = await t.http.get(`/v1/workflow-runs/${run.id as string}`).set('x-api-key', key);
      expect(one.status).toBe(200);
      expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
      const { bufferedSignals, ...rest } = one.body.data as Record<string, unknown>;
      expect(rest).toEqual(run);
      expect(Object.keys(rest).sort()).toEqual(Object.keys(run).sort());
      if (run.id === runId) {
        expect(bufferedSignals).toEqual([
          {
            id: signal.body.data.id,
            signalType: 'note',
            payloadBytes: Buffer.byteLength(JSON.stringify({ ok: 'ünïcode' })),
            payloadPreview: JSON.stringify({ ok: 'ünïcode' }),
            receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          },
        ]);
      } else {
        expect(bufferedSignals).toEqual([]);
      }
    }

    const list = await t.http.get('/v1/workflow-runs').set('x-api-key', key);
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.body.meta).toEqual({ page: 1, pageSize: 20, total: 4, totalPages: 1 });
    // Newest first: the reverse of the order they were created in.
    const expected = created.map(({ currentStepIndex: _index, ...run }) => run).reverse();
    expect(list.body.data).toEqual(expected);
    // An empty page is an empty array, with the total.
    const beyond = await t.http.get('/v1/workflow-runs?page=9').set('x-api-key', key);
    expect(beyond.body).toEqual({
      success: true,
      data: [],
      meta: { page: 9, pageSize: 20, total: 4, totalPages: 1 },
    });
  });

  it('creates the runs of many POSTs made at once each in its own workspace, with its own input', async () => {
    // Creates asked for at the same moment share a statement (CREATE_RUNS): each request must get its
    // own run, a definition of another workspace must stay a 404 and a revoked key a 401, writing
    // nothing, whatever else the statement created.
    const workspaces = [];
    for (let w = 0; w < 2; w++) {
      const made = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, made.key, [
        { type: 'wait', name: 'w', durationMs: 60_000 },
      ]);
      workspaces.push({ key: made.key, id: made.workspace.id, definitionId });
    }
    const [a, b] = workspaces;
    const revoked = await createScopedKey(t.http, a.key, ['runs:write']);
    // Used once, so that this process has the key cached (README "API key cache"), then revoked.
    await startRun(t.http, revoked.key, a.definitionId);
    expect((await t.http.delete(`/v1/api-keys/${revoked.id}`).set('x-api-key', a.key)).status).toBe(
      200,
    );
    const count = async (workspaceId: string) =>
      (
        await t.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM workflow_runs WHERE workspace_id = $1',
          [workspaceId],
        )
      )[0].n;
    const before = [await count(a.id), await count(b.id)];

    const asks: Array<{
      key: string;
      definitionId: string;
      input: unknown;
      expect: number;
      w?: number;
    }> = [];
    for (let i = 0; i < 20; i++) {
      for (const [w, ws] of workspaces.entries()) {
        asks.push({ key: ws.key, definitionId: ws.definitionId, input: { w, i }, expect: 201, w });
        if (i % 4 === 0) {
          const other = workspaces[1 - w];
          asks.push({ key: ws.key, definitionId: other.definitionId, input: { i }, expect: 404 });
        }
      }
      if (i % 4 === 0) {
        asks.push({ key: revoked.key, definitionId: a.definitionId, input: { i }, expect: 401 });
      }
    }
    const answers = await Promise.all(
      asks.map((ask) =>
        t.http
          .post('/v1/workflow-runs')
          .set('x-api-key', ask.key)
          .send({ definitionId: ask.definitionId, input: ask.input }),
      ),
    );
    const created = new Set<string>();
    for (const [n, res] of answers.entries()) {
      const ask = asks[n];
      expect([ask, res.status]).toEqual([ask, ask.expect]);
      if (ask.expect !== 201) continue;
      const run = res.body.data as { id: string; definitionId: string; input: unknown };
      expect(run).toMatchObject({
        definitionId: ask.definitionId,
        input: ask.input,
        status: 'PENDING',
      });
      created.add(run.id);
      // Stored in the caller's workspace, with its first step queued.
      const [row] = await t.sql<{ workspace_id: string; steps: number }>(
        `SELECT workspace_id, (SELECT count(*)::int FROM step_runs s WHERE s.run_id = r.id) AS steps
         FROM workflow_runs r WHERE id = $1`,
        [run.id],
      );
      expect(row).toEqual({ workspace_id: workspaces[ask.w!].id, steps: 1 });
    }
    expect(created.size).toBe(40);
    // Nothing but the 201s was written; the run list's totals agree.
    expect([await count(a.id), await count(b.id)]).toEqual([before[0] + 20, before[1] + 20]);
    for (const ws of workspaces) {
      const list = await t.http.get('/v1/workflow-runs').set('x-api-key', ws.key);
      expect(list.body.meta.total).toBe(await count(ws.id));
    }
  });

  it('answers each of many GET one run requests made at once with its own run, in its own workspace', async () => {
    // The reads of requests made at the same moment share a statement (RUN_DETAILS): each must get
    // its own run, another workspace's run must stay a 404, and a revoked key a 401, whatever else
    // the statement read.
    const workspaces = [];
    for (let w = 0; w < 2; w++) {
      const { key } = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, key, [
        { type: 'wait', name: 'w', durationMs: 60_000 },
      ]);
      const runs: string[] = [];
      for (let i = 0; i < 15; i++) runs.push(await startRun(t.http, key, definitionId, { w, i }));
      workspaces.push({ key, runs });
    }
    const [a, b] = workspaces;
    const revoked = await createScopedKey(t.http, a.key, ['runs:read']);
    // Read once, so that this process has the key cached (README "API key cache"), then revoked.
    expect(
      (await t.http.get(`/v1/workflow-runs/${a.runs[0]}`).set('x-api-key', revoked.key)).status,
    ).toBe(200);
    expect((await t.http.delete(`/v1/api-keys/${revoked.id}`).set('x-api-key', a.key)).status).toBe(
      200,
    );

    const asks: Array<{ key: string; runId: string; expect: number; input?: unknown }> = [];
    for (const [w, ws] of workspaces.entries()) {
      const other = workspaces[1 - w];
      ws.runs.forEach((runId, i) => {
        asks.push({ key: ws.key, runId, expect: 200, input: { w, i } });
        asks.push({ key: other.key, runId, expect: 404 });
      });
    }
    for (const runId of a.runs.slice(0, 5)) asks.push({ key: revoked.key, runId, expect: 401 });
    for (const runId of b.runs.slice(0, 5)) asks.push({ key: revoked.key, runId, expect: 401 });
    const answers = await Promise.all(
      asks.map((ask) => t.http.get(`/v1/workflow-runs/${ask.runId}`).set('x-api-key', ask.key)),
    );
    answers.forEach((res, n) => {
      const ask = asks[n];
      expect([ask.runId, res.status]).toEqual([ask.runId, ask.expect]);
      if (ask.expect === 200) {
        expect(res.body.data).toMatchObject({ id: ask.runId, input: ask.input });
      } else if (ask.expect === 404) {
        expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'workflow run not found' });
      } else {
        expect(res.body.error).toEqual({
          code: 'AUTH_ERROR',
          message: 'invalid or revoked API key',
        });
      }
    });
  });
  it('answers each of many run list requests made at once with its own workspace and total', async () => {
    // First pages of the list asked for at the same moment share a statement (runListStatements'
    // batch): each must get its own workspace's runs and total, and a revoked key a 401.
    const workspaces: Array<{ key: string; runs: string[] }> = [];
    for (let w = 0; w < 2; w++) {
      const { key } = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, key, [
        { type: 'wait', name: 'w', durationMs: 60_000 },
      ]);
      const runs: string[] = [];
      for (let i = 0; i < 3 + 2 * w; i++) {
        runs.push(await startRun(t.http, key, definitionId, { w, i }));
      }
      workspaces.push({ key, runs });
    }
    const revoked = await createScopedKey(t.http, workspaces[0].key, ['runs:read']);
    expect((await t.http.get('/v1/workflow-runs').set('x-api-key', revoked.key)).status).toBe(200);
    expect(
      (await t.http.delete(`/v1/api-keys/${revoked.id}`).set('x-api-key', workspaces[0].key))
        .status,
    ).toBe(200);

    const asks: Array<{ key: string; w?: number }> = [];
    for (let n = 0; n < 20; n++) asks.push({ key: workspaces[n % 2].key, w: n % 2 });
    for (let n = 0; n < 5; n++) asks.push({ key: revoked.key });
    const answers = await Promise.all(
      asks.map((ask) => t.http.get('/v1/workflow-runs').set('x-api-key', ask.key)),
    );
    answers.forEach((res, n) => {
      const { w } = asks[n];
      if (w === undefined) {
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('AUTH_ERROR');
        return;
      }
      const runs = workspaces[w].runs;
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(runs.length);
      expect((res.body.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(
        [...runs].sort(),
      );
    });
  });
});
