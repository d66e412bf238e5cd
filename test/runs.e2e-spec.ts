import { Module } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  createDefinition,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
} from './support/workflows';
import { ISO_MS, UUID, UUID_V7, uuidMillis } from './support/formats';

const NOT_WAITING = 'run is not in a waiting state';

/** Holds its step in flight until the run is cancelled (its AbortSignal fires). */
@TaskHandler('test.hold')
class HoldHandler {
  handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(new Error('released')), { once: true });
    });
  }
}

@Module({ providers: [HoldHandler] })
class RunsTestHandlersModule {}

type Status = 'PENDING' | 'RUNNING' | 'WAITING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** Arrays nested `depth` deep: nested(2) is [[]]. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe('workflow runs', () => {
  /** Executor enabled: runs move on. */
  let t: TestApp;
  /** API only, on its own database: runs stay PENDING. */
  let api: TestApp;
  let a: WorkspaceWithKey;
  let b: WorkspaceWithKey;
  let pendingWs: WorkspaceWithKey;
  let defs: Record<'complete' | 'fail' | 'signal' | 'hold', string>;
  let pendingDef: string;
  const held: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({}, { imports: [RunsTestHandlersModule] });
    api = await createTestApp(
      { EXECUTOR_ENABLED: 'false' },
      { databaseUrl: await createTestDatabase() },
    );
    a = await createWorkspaceWithKey(t.http);
    b = await createWorkspaceWithKey(t.http);
    pendingWs = await createWorkspaceWithKey(api.http);
    defs = {
      complete: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]),
      fail: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'broken', handler: 'no.such.handler' },
      ]),
      signal: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'prepare', handler: 'noop' },
        { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
        { type: 'task', name: 'finish', handler: 'noop' },
      ]),
      hold: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'hold', handler: 'test.hold' },
      ]),
    };
    pendingDef = await createDefinition(api.http, pendingWs.key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
  });

  afterAll(async () => {
    // Held steps are in flight: cancel them so that shutdown does not wait for them.
    for (const id of held) {
      await t?.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', a.key);
    }
    await t?.close();
    await api?.close();
  });

  /** A run of workspace `a` in the given status (PENDING runs live on the API-only app). */
  async function runIn(status: Exclude<Status, 'PENDING'>): Promise<string> {
    switch (status) {
      case 'COMPLETED': {
        const id = await startRun(t.http, a.key, defs.complete);
        await waitForRun(t.http, a.key, id, 'COMPLETED');
        return id;
      }
      case 'FAILED': {
        const id = await startRun(t.http, a.key, defs.fail);
        await waitForRun(t.http, a.key, id, 'FAILED');
        return id;
      }
      case 'WAITING': {
        const id = await startRun(t.http, a.key, defs.signal);
        await waitForRun(t.http, a.key, id, 'WAITING');
        return id;
      }
      case 'CANCELLED': {
        const id = await runIn('WAITING');
        const res = await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', a.key);
        expect(res.status).toBe(200);
        return id;
      }
      case 'RUNNING': {
        const id = await startRun(t.http, a.key, defs.hold);
        held.push(id);
        await waitForRun(t.http, a.key, id, 'RUNNING');
        return id;
      }
    }
  }

  /** A run that stays PENDING (no executor), with its app and key. */
  async function pendingRun(): Promise<string> {
    return startRun(api.http, pendingWs.key, pendingDef);
  }

  async function runCount(app: TestApp, workspaceId: string): Promise<number> {
    const [row] = await app.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM workflow_runs WHERE workspace_id = $1',
      [workspaceId],
    );
    return row.n;
  }

  const notFound = { success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } };

  describe('POST /v1/workflow-runs', () => {
    it('creates a PENDING run: 201 with input defaulting to {} and output null', async () => {
      const res = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ definitionId: pendingDef });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          workspaceId: pendingWs.workspace.id,
          definitionId: pendingDef,
          status: 'PENDING',
          input: {},
          output: null,
          error: null,
          idempotencyKey: null,
          scheduleId: null,
          parentRunId: null,
          parentStepRunId: null,
          currentStepIndex: 0,
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
        },
      });
    });

    it.each([
      ['the given input', { order: { id: 7, lines: [{ sku: 'a', qty: 2 }] }, note: null }],
      ['an input nested 63 levels deep', { a: nested(62) }],
    ])('keeps %s', async (_case, input) => {
      const res = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ definitionId: pendingDef, input });
      expect(res.status).toBe(201);
      expect(res.body.data.input).toEqual(input);
      expect((await getRun(api.http, pendingWs.key, res.body.data.id)).input).toEqual(input);
    });

    it('answers 200 with the existing run for a repeated idempotencyKey, creating no second run', async () => {
      const idempotencyKey = `order-${randomBytes(6).toString('hex')}`;
      const body = { definitionId: pendingDef, input: { n: 1 }, idempotencyKey };
      const first = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send(body);
      expect(first.status).toBe(201);
      expect(first.body.data.idempotencyKey).toBe(idempotencyKey);
      const before = await runCount(api, pendingWs.workspace.id);
      const second = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ ...body, input: { n: 2 } });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ success: true, data: first.body.data });
      expect(await runCount(api, pendingWs.workspace.id)).toBe(before);
    });

    it('creates exactly one run for concurrent creations with one idempotencyKey', async () => {
      const idempotencyKey = `race-${randomBytes(6).toString('hex')}`;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          api.http
            .post('/v1/workflow-runs')
            .set('x-api-key', pendingWs.key)
            .send({ definitionId: pendingDef, idempotencyKey }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
      expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(1);
      const rows = await api.sql('SELECT id FROM workflow_runs WHERE idempotency_key = $1', [
        idempotencyKey,
      ]);
      expect(rows).toHaveLength(1);
    });

    it('scopes idempotencyKey to the workspace: the same key starts a new run elsewhere', async () => {
      const other = await createWorkspaceWithKey(api.http);
      const otherDef = await createDefinition(api.http, other.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const idempotencyKey = `shared-${randomBytes(6).toString('hex')}`;
      const mine = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ definitionId: pendingDef, idempotencyKey });
      const theirs = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', other.key)
        .send({ definitionId: otherDef, idempotencyKey });
      expect([mine.status, theirs.status]).toEqual([201, 201]);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    });

    it('accepts an idempotencyKey of 255 characters and rejects 256 with 400 naming it', async () => {
      const ok = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ definitionId: pendingDef, idempotencyKey: `${randomUUID()}`.padEnd(255, 'k') });
      expect(ok.status).toBe(201);
      const before = await runCount(api, pendingWs.workspace.id);
      const res = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send({ definitionId: pendingDef, idempotencyKey: 'k'.repeat(256) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual([
        { field: 'idempotencyKey', message: expect.any(String) },
      ]);
      expect(await runCount(api, pendingWs.workspace.id)).toBe(before);
    });

    it.each([
      ['a missing definitionId', {}, 'definitionId'],
      ['a definitionId that is not a string', { definitionId: 42 }, 'definitionId'],
      ['an input that is an array', { input: [1, 2] }, 'input'],
      ['an input that is a string', { input: 'hello' }, 'input'],
      ['an input that is null', { input: null }, 'input'],
      ['an empty idempotencyKey', { idempotencyKey: '' }, 'idempotencyKey'],
      ['an unknown field', { priority: 'high' }, 'priority'],
      ['an input holding the NUL character', { input: { note: 'a\u0000b' } }, 'input.note'],
      [
        'an input nested 64 levels deep',
        { input: { a: nested(63) } },
        `input.a${'[0]'.repeat(62)}`,
      ],
    ])('answers 400 VALIDATION_ERROR for %s', async (_case, patch, field) => {
      const before = await runCount(api, pendingWs.workspace.id);
      const body: Record<string, unknown> = { definitionId: pendingDef, ...patch };
      if (field === 'definitionId' && !('definitionId' in patch)) delete body.definitionId;
      const res = await api.http
        .post('/v1/workflow-runs')
        .set('x-api-key', pendingWs.key)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
      expect(await runCount(api, pendingWs.workspace.id)).toBe(before);
    });

    it.each([
      ['an unknown definitionId', () => randomUUID()],
      ['a definitionId of another workspace', () => defs.complete],
      ['a malformed definitionId', () => 'definition-1'],
    ])('answers 404 NOT_FOUND for %s, and writes nothing', async (_case, id) => {
      const before = await runCount(t, b.workspace.id);
      const res = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', b.key)
        .send({ definitionId: id() });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
      expect(await runCount(t, b.workspace.id)).toBe(before);
    });
  });

  describe('GET /v1/workflow-runs', () => {
    let ws: WorkspaceWithKey;
    let okDef: string;
    let waitDef: string;
    /** Oldest first: COMPLETED, WAITING, COMPLETED, FAILED, CANCELLED. */
    let ids: string[];

    beforeAll(async () => {
      ws = await createWorkspaceWithKey(t.http);
      okDef = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'ok', handler: 'noop' },
      ]);
      waitDef = await createDefinition(t.http, ws.key, [
        { type: 'external_event', name: 'signal', signalType: 'go' },
        { type: 'task', name: 'bad', handler: 'no.such.handler' },
      ]);
      ids = [];
      const plan: Array<[string, string]> = [
        [okDef, 'COMPLETED'],
        [waitDef, 'WAITING'],
        [okDef, 'COMPLETED'],
        [waitDef, 'FAILED'],
        [waitDef, 'CANCELLED'],
      ];
      for (const [def, status] of plan) {
        const id = await startRun(t.http, ws.key, def);
        ids.push(id);
        if (status === 'COMPLETED') await waitForRun(t.http, ws.key, id, 'COMPLETED');
        else await waitForRun(t.http, ws.key, id, 'WAITING');
        if (status === 'FAILED') {
          await t.http
            .post(`/v1/workflow-runs/${id}/resume`)
            .set('x-api-key', ws.key)
            .send({ signalType: 'go' });
          await waitForRun(t.http, ws.key, id, 'FAILED');
        }
        if (status === 'CANCELLED') {
          await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', ws.key);
        }
      }
    });

    const list = (query: string) =>
      t.http.get(`/v1/workflow-runs${query}`).set('x-api-key', ws.key);

    it('lists the workspace runs newest first with meta {page, pageSize, total, totalPages}', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.meta).toEqual({ page: 1, pageSize: 20, total: 5, totalPages: 1 });
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
      expect(res.body.data[0]).toEqual({
        id: ids[4],
        workspaceId: ws.workspace.id,
        definitionId: waitDef,
        status: 'CANCELLED',
        input: {},
        output: null,
        error: null,
        idempotencyKey: null,
        scheduleId: null,
        parentRunId: null,
        parentStepRunId: null,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('pages with page and pageSize; totalPages is ceil(total / pageSize)', async () => {
      const first = await list('?page=1&pageSize=2');
      const second = await list('?page=2&pageSize=2');
      const third = await list('?page=3&pageSize=2');
      const beyond = await list('?page=4&pageSize=2');
      for (const res of [first, second, third, beyond]) {
        expect(res.status).toBe(200);
        expect(res.body.meta).toMatchObject({ pageSize: 2, total: 5, totalPages: 3 });
      }
      expect(second.body.meta.page).toBe(2);
      const pages = [first, second, third].flatMap((r) =>
        r.body.data.map((d: { id: string }) => d.id),
      );
      expect(pages).toEqual([...ids].reverse());
      expect(third.body.data).toHaveLength(1);
      expect(beyond.body.data).toEqual([]);
      expect((await list('?pageSize=100')).body.meta).toEqual({
        page: 1,
        pageSize: 100,
        total: 5,
        totalPages: 1,
      });
    });

    it('filters by status', async () => {
      const completed = await list('?status=COMPLETED');
      expect(completed.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[0]]);
      expect(completed.body.meta).toEqual({ page: 1, pageSize: 20, total: 2, totalPages: 1 });
      for (const [status, id] of [
        ['WAITING', ids[1]],
        ['FAILED', ids[3]],
        ['CANCELLED', ids[4]],
      ]) {
        const res = await list(`?status=${status}`);
        expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
      }
      const paused = await list('?status=PAUSED');
      expect(paused.body).toEqual({
        success: true,
        data: [],
        meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 },
      });
    });

    it('filters by definitionId, alone and with status', async () => {
      const byDef = await list(`?definitionId=${waitDef}`);
      expect(byDef.body.data.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3], ids[1]]);
      expect(byDef.body.meta.total).toBe(3);
      const both = await list(`?definitionId=${okDef}&status=COMPLETED&pageSize=1`);
      expect(both.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
      expect(both.body.meta).toEqual({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
      const unknown = await list(`?definitionId=${randomUUID()}`);
      expect(unknown.body.data).toEqual([]);
      expect(unknown.body.meta.total).toBe(0);
    });

    it('never lists runs of another workspace', async () => {
      const res = await t.http
        .get(`/v1/workflow-runs?definitionId=${okDef}`)
        .set('x-api-key', b.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.total).toBe(0);
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=101', 'pageSize'],
      ['pageSize=ten', 'pageSize'],
      ['status=DONE', 'status'],
      ['status=completed', 'status'],
      ['sort=asc', 'sort'],
    ])('answers 400 VALIDATION_ERROR for %s', async (query, field) => {
      const res = await list(`?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
    });
  });

  describe('GET /v1/workflow-runs/:id', () => {
    it('returns the run with currentStepIndex, the index of the step in progress, and its buffered signals (none)', async () => {
      const id = await runIn('WAITING');
      const res = await t.http.get(`/v1/workflow-runs/${id}`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id,
          workspaceId: a.workspace.id,
          definitionId: defs.signal,
          status: 'WAITING',
          input: {},
          output: null,
          error: null,
          idempotencyKey: null,
          scheduleId: null,
          parentRunId: null,
          parentStepRunId: null,
          currentStepIndex: 1,
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
          bufferedSignals: [],
        },
      });
    });

    it('keeps currentStepIndex at the last step executed once the run is terminal', async () => {
      const id = await runIn('WAITING');
      await t.http
        .post(`/v1/workflow-runs/${id}/resume`)
        .set('x-api-key', a.key)
        .send({ signalType: 'payment.received' });
      const run = await waitForRun(t.http, a.key, id, 'COMPLETED');
      expect(run.currentStepIndex).toBe(2);
      const failed = await getRun(t.http, a.key, await runIn('FAILED'));
      expect(failed.currentStepIndex).toBe(0);
      expect(failed.error).toBe('unknown task handler "no.such.handler"');
    });
  });

  describe('404 NOT_FOUND for runs of another workspace and ids that are not ours', () => {
    let foreign: string;
    beforeAll(async () => {
      foreign = await runIn('WAITING');
    });

    const targets = (): Array<[string, string]> => [
      ['a run of another workspace', foreign],
      ['an unknown id', randomUUID()],
      ['a malformed id', 'run-1'],
    ];
    // Four values per row: a test function with more parameters than the row gets a done callback.
    const operations: Array<[string, 'get' | 'post', string, Record<string, unknown>]> = [
      ['GET', 'get', '', {}],
      ['GET events', 'get', '/events', {}],
      ['GET steps', 'get', '/steps', {}],
      ['cancel', 'post', '/cancel', {}],
      ['resume', 'post', '/resume', { signalType: 'payment.received' }],
      ['retry', 'post', '/retry', {}],
    ];

    it.each(operations)(
      '%s answers 404 for each, and changes nothing',
      async (_n, method, path, body) => {
        for (const [, id] of targets()) {
          const req = t.http[method](`/v1/workflow-runs/${id}${path}`).set('x-api-key', b.key);
          const res = method === 'post' ? await req.send(body) : await req;
          expect(res.status).toBe(404);
          expect(res.body).toEqual(notFound);
        }
        expect((await getRun(t.http, a.key, foreign)).status).toBe('WAITING');
      },
    );
  });

  describe('POST /v1/workflow-runs/:id/cancel', () => {
    it('cancels a WAITING run: 200 {id, status CANCELLED, updatedAt}, recorded as WORKFLOW_CANCELLED', async () => {
      const id = await runIn('WAITING');
      const res = await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { id, status: 'CANCELLED', updatedAt: expect.stringMatching(ISO_MS) },
      });
      const run = await getRun(t.http, a.key, id);
      expect(run.status).toBe('CANCELLED');
      expect(run.updatedAt).toBe(res.body.data.updatedAt);
      const events = await runEvents(t.http, a.key, id);
      expect(events.at(-1)).toMatchObject({ eventType: 'WORKFLOW_CANCELLED', stepRunId: null });
      const steps = await t.http.get(`/v1/workflow-runs/${id}/steps`).set('x-api-key', a.key);
      expect(steps.body.data.at(-1)).toMatchObject({
        stepName: 'await-payment',
        status: 'CANCELLED',
      });
    });

    it('cancels a PENDING run', async () => {
      const id = await pendingRun();
      const res = await api.http
        .post(`/v1/workflow-runs/${id}/cancel`)
        .set('x-api-key', pendingWs.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id,
        status: 'CANCELLED',
        updatedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('cancels a RUNNING run', async () => {
      const id = await runIn('RUNNING');
      const res = await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('CANCELLED');
      expect((await getRun(t.http, a.key, id)).status).toBe('CANCELLED');
    });

    it.each(['COMPLETED', 'FAILED', 'CANCELLED'] as const)(
      'answers 409 CONFLICT for a %s run and leaves it unchanged',
      async (status) => {
        const id = await runIn(status);
        const before = await getRun(t.http, a.key, id);
        const res = await t.http.post(`/v1/workflow-runs/${id}/cancel`).set('x-api-key', a.key);
        expect(res.status).toBe(409);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'CONFLICT', message: expect.stringContaining(status) },
        });
        expect(await getRun(t.http, a.key, id)).toEqual(before);
      },
    );
  });

  describe('POST /v1/workflow-runs/:id/resume', () => {
    it('resumes a WAITING run: 200 {id, status RUNNING, updatedAt}, and the run goes on', async () => {
      const id = await runIn('WAITING');
      const res = await t.http
        .post(`/v1/workflow-runs/${id}/resume`)
        .set('x-api-key', a.key)
        .send({ signalType: 'payment.received' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { id, status: 'RUNNING', updatedAt: expect.stringMatching(ISO_MS) },
      });
      const run = await waitForRun(t.http, a.key, id, 'COMPLETED');
      // payload defaults to {}
      expect(run.output).toMatchObject({
        'await-payment': { signalType: 'payment.received', payload: {} },
      });
    });

    it.each([
      ['without signalType', { payload: { a: 1 } }, 'signalType'],
      ['with an empty signalType', { signalType: '' }, 'signalType'],
      ['with a signalType that is not a string', { signalType: 7 }, 'signalType'],
      [
        'with a payload that is an array',
        { signalType: 'payment.received', payload: [1] },
        'payload',
      ],
      [
        'with a payload that is a string',
        { signalType: 'payment.received', payload: 'x' },
        'payload',
      ],
      ['with a payload that is null', { signalType: 'payment.received', payload: null }, 'payload'],
      ['with an unknown field', { signalType: 'payment.received', data: {} }, 'data'],
    ])('answers 400 VALIDATION_ERROR %s, and the run keeps waiting', async (_case, body, field) => {
      const id = await runIn('WAITING');
      const res = await t.http
        .post(`/v1/workflow-runs/${id}/resume`)
        .set('x-api-key', a.key)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
      expect((await getRun(t.http, a.key, id)).status).toBe('WAITING');
    });

    it(`answers 409 '${NOT_WAITING}' for a PENDING run`, async () => {
      const id = await pendingRun();
      const res = await api.http
        .post(`/v1/workflow-runs/${id}/resume`)
        .set('x-api-key', pendingWs.key)
        .send({ signalType: 'anything' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: NOT_WAITING },
      });
      expect((await getRun(api.http, pendingWs.key, id)).status).toBe('PENDING');
    });

    it.each(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const)(
      `answers 409 '${NOT_WAITING}' for a %s run`,
      async (status) => {
        const id = await runIn(status);
        const res = await t.http
          .post(`/v1/workflow-runs/${id}/resume`)
          .set('x-api-key', a.key)
          .send({ signalType: 'payment.received' });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'CONFLICT', message: NOT_WAITING },
        });
        expect((await getRun(t.http, a.key, id)).status).toBe(status);
      },
    );
  });

  describe('POST /v1/workflow-runs/:id/retry', () => {
    it('retries a FAILED run: 200 {id, status RUNNING, updatedAt}', async () => {
      const id = await runIn('FAILED');
      const res = await t.http.post(`/v1/workflow-runs/${id}/retry`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { id, status: 'RUNNING', updatedAt: expect.stringMatching(ISO_MS) },
      });
      // The handler is still unknown: the retried step fails again.
      await waitForRun(t.http, a.key, id, 'FAILED');
      const steps = await t.http.get(`/v1/workflow-runs/${id}/steps`).set('x-api-key', a.key);
      expect(steps.body.data.map((s: { status: string }) => s.status)).toEqual([
        'FAILED',
        'FAILED',
      ]);
    });

    it('answers 409 CONFLICT for a PENDING run', async () => {
      const id = await pendingRun();
      const res = await api.http
        .post(`/v1/workflow-runs/${id}/retry`)
        .set('x-api-key', pendingWs.key);
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'CONFLICT',
        message: expect.stringContaining('FAILED'),
      });
    });

    it.each(['RUNNING', 'WAITING', 'COMPLETED', 'CANCELLED'] as const)(
      'answers 409 CONFLICT for a %s run and leaves it unchanged',
      async (status) => {
        const id = await runIn(status);
        const res = await t.http.post(`/v1/workflow-runs/${id}/retry`).set('x-api-key', a.key);
        expect(res.status).toBe(409);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'CONFLICT', message: expect.stringContaining('only FAILED runs') },
        });
        expect((await getRun(t.http, a.key, id)).status).toBe(status);
      },
    );
  });

  describe('GET /v1/workflow-runs/:id/events', () => {
    let completedId: string;
    let events: EventView[];

    beforeAll(async () => {
      completedId = await runIn('WAITING');
      await t.http
        .post(`/v1/workflow-runs/${completedId}/resume`)
        .set('x-api-key', a.key)
        .send({ signalType: 'payment.received', payload: { amount: 12 } });
      await waitForRun(t.http, a.key, completedId, 'COMPLETED');
      events = await runEvents(t.http, a.key, completedId);
    });

    it('lists every event oldest first, each with id, workflowRunId, stepRunId, eventType, payload, createdAt', async () => {
      expect(events.map((e) => [e.eventType, e.payload.stepName])).toEqual([
        ['WORKFLOW_STARTED', undefined],
        ['STEP_STARTED', 'prepare'],
        ['STEP_COMPLETED', 'prepare'],
        ['STEP_STARTED', 'await-payment'],
        ['SIGNAL_RECEIVED', 'await-payment'],
        ['STEP_COMPLETED', 'await-payment'],
        ['STEP_STARTED', 'finish'],
        ['STEP_COMPLETED', 'finish'],
        ['WORKFLOW_COMPLETED', undefined],
      ]);
      for (const e of events) {
        expect(e).toEqual({
          id: expect.stringMatching(UUID),
          workflowRunId: completedId,
          stepRunId: e.eventType.startsWith('WORKFLOW_') ? null : expect.stringMatching(UUID),
          eventType: e.eventType,
          payload: expect.any(Object),
          createdAt: expect.stringMatching(ISO_MS),
        });
      }
      const times = events.map((e) => Date.parse(e.createdAt));
      expect(times).toEqual([...times].sort((x, y) => x - y));
    });

    it('gives the run, its step runs and its events time-ordered ids (UUID version 7)', async () => {
      const run = await getRun(t.http, a.key, completedId);
      const res = await t.http
        .get(`/v1/workflow-runs/${completedId}/steps`)
        .set('x-api-key', a.key);
      const stepIds = (res.body.data as Array<{ id: string }>).map((s) => s.id);
      const ids = [completedId, ...stepIds, ...events.map((e) => e.id)];
      // The time in each id lies within the run's life (one second of slack for clock rounding).
      const from = Date.parse(run.createdAt) - 1000;
      const to = Date.parse(events[events.length - 1].createdAt) + 1000;
      for (const id of ids) {
        expect(id).toMatch(UUID_V7);
        expect(uuidMillis(id)).toBeGreaterThanOrEqual(from);
        expect(uuidMillis(id)).toBeLessThanOrEqual(to);
      }
      // Step runs are made one after another (the first in SQL, the others in the executor).
      const stepTimes = stepIds.map(uuidMillis);
      expect(stepTimes).toEqual([...stepTimes].sort((x, y) => x - y));
    });

    it('carries the payload fields of the interface: stepName, stepType, durationMs, signalType', async () => {
      const started = events.filter((e) => e.eventType === 'STEP_STARTED');
      expect(started.map((e) => e.payload)).toEqual([
        expect.objectContaining({ stepName: 'prepare', stepType: 'task' }),
        expect.objectContaining({ stepName: 'await-payment', stepType: 'external_event' }),
        expect.objectContaining({ stepName: 'finish', stepType: 'task' }),
      ]);
      for (const e of events.filter((x) => x.eventType === 'STEP_COMPLETED')) {
        expect(Number.isInteger(e.payload.durationMs)).toBe(true);
        expect(e.payload.durationMs).toBeGreaterThanOrEqual(0);
      }
      const signal = events.find((e) => e.eventType === 'SIGNAL_RECEIVED');
      expect(signal?.payload).toMatchObject({ signalType: 'payment.received' });
      // One step run id per step, shared by its events.
      const stepIds = new Set(started.map((e) => e.stepRunId));
      expect(stepIds.size).toBe(3);
      for (const e of events.filter((x) => x.payload.stepName === 'await-payment')) {
        expect(e.stepRunId).toBe(started[1].stepRunId);
      }
    });

    it('records STEP_FAILED with the error and WORKFLOW_FAILED for a failed run', async () => {
      const id = await runIn('FAILED');
      const failed = await runEvents(t.http, a.key, id);
      expect(failed.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      expect(failed[2].payload).toMatchObject({
        stepName: 'broken',
        error: 'unknown task handler "no.such.handler"',
      });
      expect(failed[3].stepRunId).toBeNull();
    });

    it('pages oldest first with meta', async () => {
      const pages: EventView[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await t.http
          .get(`/v1/workflow-runs/${completedId}/events?page=${page}&pageSize=3`)
          .set('x-api-key', a.key);
        expect(res.status).toBe(200);
        expect(res.body.meta).toEqual({ page, pageSize: 3, total: 9, totalPages: 3 });
        pages.push(...(res.body.data as EventView[]));
      }
      expect(pages).toEqual(events);
      const defaults = await t.http
        .get(`/v1/workflow-runs/${completedId}/events`)
        .set('x-api-key', a.key);
      expect(defaults.body.meta).toEqual({ page: 1, pageSize: 20, total: 9, totalPages: 1 });
    });

    it.each(['page=0', 'pageSize=0', 'pageSize=101', 'page=1.5', 'page=x'])(
      'answers 400 VALIDATION_ERROR for %s',
      async (query) => {
        const res = await t.http
          .get(`/v1/workflow-runs/${completedId}/events?${query}`)
          .set('x-api-key', a.key);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      },
    );
  });

  describe('GET /v1/workflow-runs/:id/steps', () => {
    it('lists the step runs in execution order with id, stepIndex, stepName, stepType, status, attempt, output, error, startedAt, completedAt', async () => {
      const id = await runIn('WAITING');
      const waiting = await t.http.get(`/v1/workflow-runs/${id}/steps`).set('x-api-key', a.key);
      expect(waiting.status).toBe(200);
      expect(waiting.body).toEqual({
        success: true,
        data: [
          {
            id: expect.stringMatching(UUID),
            stepIndex: 0,
            stepName: 'prepare',
            stepType: 'task',
            status: 'COMPLETED',
            attempt: 1,
            output: {},
            error: null,
            startedAt: expect.stringMatching(ISO_MS),
            completedAt: expect.stringMatching(ISO_MS),
          },
          {
            id: expect.stringMatching(UUID),
            stepIndex: 1,
            stepName: 'await-payment',
            stepType: 'external_event',
            status: 'WAITING',
            attempt: 1,
            output: null,
            error: null,
            startedAt: expect.stringMatching(ISO_MS),
            completedAt: null,
          },
        ],
      });
      await t.http
        .post(`/v1/workflow-runs/${id}/resume`)
        .set('x-api-key', a.key)
        .send({ signalType: 'payment.received', payload: { ok: true } });
      await waitForRun(t.http, a.key, id, 'COMPLETED');
      const done = await t.http.get(`/v1/workflow-runs/${id}/steps`).set('x-api-key', a.key);
      expect(
        done.body.data.map((s: { stepIndex: number; status: string }) => [s.stepIndex, s.status]),
      ).toEqual([
        [0, 'COMPLETED'],
        [1, 'COMPLETED'],
        [2, 'COMPLETED'],
      ]);
      expect(done.body.data[1].output).toEqual({
        signalType: 'payment.received',
        payload: { ok: true },
        receivedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('shows a failed step with its error', async () => {
      const id = await runIn('FAILED');
      const res = await t.http.get(`/v1/workflow-runs/${id}/steps`).set('x-api-key', a.key);
      expect(res.body.data).toEqual([
        expect.objectContaining({
          stepName: 'broken',
          status: 'FAILED',
          attempt: 1,
          output: null,
          error: 'unknown task handler "no.such.handler"',
          completedAt: expect.stringMatching(ISO_MS),
        }),
      ]);
    });

    it('shows the first step PENDING, not started, for a run no executor has claimed', async () => {
      const id = await pendingRun();
      const res = await api.http
        .get(`/v1/workflow-runs/${id}/steps`)
        .set('x-api-key', pendingWs.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({
          stepIndex: 0,
          stepName: 'only',
          status: 'PENDING',
          startedAt: null,
          completedAt: null,
        }),
      ]);
    });
  });
});
