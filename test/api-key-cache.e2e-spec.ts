import { randomUUID } from 'node:crypto';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ApiKeyAuthService } from '../src/api-keys/api-key-auth.service';
import type { AuthenticatedRequest } from '../src/common/auth';
import { CachedKeyCheck } from '../src/common/auth';
import { RunsController } from '../src/runs/runs.controller';
import { createTestApp, type TestApp } from './support/app';
import { createScopedKey, createWorkspaceWithKey } from './support/factories';
import { createDefinition, startRun } from './support/workflows';

const INVALID_KEY = {
  success: false,
  error: { code: 'AUTH_ERROR', message: 'invalid or revoked API key' },
};
const NOOP = [{ type: 'task', name: 'a', handler: 'noop' }];

/**
 * README "API key cache": the run routes whose statements check the key (GET one run, the run list,
 * POST a run) take a key this process has seen from memory. A revoked key must still be refused on
 * the very next request, on every replica, whatever the route answers otherwise.
 */
describe('API key cache', () => {
  /** Two replicas on one database: `a` revokes, `b` had the key cached. */
  let a: TestApp;
  let b: TestApp;
  /** The cache turned off. */
  let off: TestApp;
  /** Two requests per workspace per minute. */
  let limited: TestApp;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({}, { databaseUrl: a.databaseUrl });
    off = await createTestApp({ API_KEY_CACHE_SIZE: '0' }, { databaseUrl: a.databaseUrl });
    limited = await createTestApp(
      { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' },
      { databaseUrl: a.databaseUrl },
    );
  });
  afterAll(async () => {
    await limited?.close();
    await off?.close();
    await b?.close();
    await a?.close();
  });

  /** A workspace with a definition and a run, and a second key (the victim) every replica has used. */
  async function arrange(scopes?: string[]) {
    const owner = await createWorkspaceWithKey(a.http);
    const definitionId = await createDefinition(a.http, owner.key, NOOP);
    const runId = await startRun(a.http, owner.key, definitionId);
    const victim = scopes
      ? await createScopedKey(a.http, owner.key, scopes)
      : await createScopedKey(a.http, owner.key, ['runs:read', 'runs:write']);
    for (const t of [a, b]) {
      expect(
        (await t.http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', victim.key)).status,
      ).toBe(200);
      expect((await t.http.get('/v1/workflow-runs').set('x-api-key', victim.key)).status).toBe(200);
    }
    return { owner, definitionId, runId, victim };
  }

  async function revoke(ownerKey: string, id: string): Promise<void> {
    const res = await a.http.delete(`/v1/api-keys/${id}`).set('x-api-key', ownerKey);
    expect(res.status).toBe(200);
  }

  async function runCount(workspaceId: string): Promise<number> {
    const [row] = await a.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM workflow_runs WHERE workspace_id = $1',
      [workspaceId],
    );
    return row.n;
  }

  it('takes a key it has read from memory on the routes that check it, and nowhere else', async () => {
    const { key } = await createWorkspaceWithKey(a.http);
    const auth = a.app.get(ApiKeyAuthService);
    /** The key of a fresh request to GET one run (which checks it), or to cancel a run (which does not). */
    const resolved = async (
      service: ApiKeyAuthService,
      checked: boolean,
      headers: Record<string, string> = {},
    ) => {
      const req = {
        method: 'GET',
        headers: { 'x-api-key': key, ...headers },
        headersDistinct: {},
      } as unknown as AuthenticatedRequest;
      const handler = checked ? RunsController.prototype.get : RunsController.prototype.cancel;
      const found = await service.resolve(
        req,
        new ExecutionContextHost([req], RunsController, handler),
      );
      return found.kind === 'key' ? found : undefined;
    };
    const first = await resolved(auth, true);
    expect(first?.cached).toBeUndefined();
    const second = await resolved(auth, true);
    expect(second?.cached).toBeInstanceOf(CachedKeyCheck);
    expect(second?.workspaceId).toBe(first?.workspaceId);
    // A route that does not check the key in its statement always reads it from the database.
    expect((await resolved(auth, false))?.cached).toBeUndefined();
    // A request with an Idempotency-Key takes it from memory too (its claim is the key writer's).
    expect((await resolved(auth, true, { 'idempotency-key': 'k-1' }))?.cached).toBeInstanceOf(
      CachedKeyCheck,
    );
    // API_KEY_CACHE_SIZE=0 turns the cache off.
    const offAuth = off.app.get(ApiKeyAuthService);
    await resolved(offAuth, true);
    expect((await resolved(offAuth, true))?.cached).toBeUndefined();
  });

  it('refuses a revoked key at once on GET one run, the run list and POST a run, on the replica that had it cached', async () => {
    const { owner, definitionId, runId, victim } = await arrange();
    await revoke(owner.key, victim.id);
    const before = await runCount(owner.workspace.id);
    for (const t of [b, a]) {
      const one = await t.http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', victim.key);
      expect([one.status, one.body]).toEqual([401, INVALID_KEY]);
      const list = await t.http.get('/v1/workflow-runs').set('x-api-key', victim.key);
      expect([list.status, list.body]).toEqual([401, INVALID_KEY]);
      const filtered = await t.http
        .get(`/v1/workflow-runs?status=COMPLETED&definitionId=${definitionId}`)
        .set('x-api-key', victim.key);
      expect([filtered.status, filtered.body]).toEqual([401, INVALID_KEY]);
      const created = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', victim.key)
        .send({ definitionId, input: {} });
      expect([created.status, created.body]).toEqual([401, INVALID_KEY]);
      // The slow path of a create (an idempotencyKey in the body) checks the key too.
      const keyed = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', victim.key)
        .send({ definitionId, input: {}, idempotencyKey: `k-${randomUUID()}` });
      expect([keyed.status, keyed.body]).toEqual([401, INVALID_KEY]);
    }
    expect(await runCount(owner.workspace.id)).toBe(before);
  });

  it('answers 401, not the route’s 400 or 404, for a revoked cached key', async () => {
    const { owner, definitionId, victim } = await arrange();
    // POST a run once on each replica, so the create's own path has used the cached key.
    for (const t of [a, b]) await startRun(t.http, victim.key, definitionId);
    await revoke(owner.key, victim.id);
    const before = await runCount(owner.workspace.id);
    const calls = [
      (t: TestApp) => t.http.get(`/v1/workflow-runs/${randomUUID()}`),
      (t: TestApp) => t.http.get('/v1/workflow-runs/not-a-uuid'),
      (t: TestApp) => t.http.get('/v1/workflow-runs?pageSize=0'),
      (t: TestApp) => t.http.get('/v1/workflow-runs?definitionId=not-a-uuid'),
      (t: TestApp) => t.http.post('/v1/workflow-runs').send({ input: {} }),
      (t: TestApp) => t.http.post('/v1/workflow-runs').send({ definitionId: randomUUID() }),
      (t: TestApp) => t.http.post('/v1/workflow-runs').send({ definitionId: 'nope' }),
    ];
    for (const t of [b, a]) {
      for (const call of calls) {
        const res = await call(t).set('x-api-key', victim.key);
        expect([res.status, res.body]).toEqual([401, INVALID_KEY]);
      }
    }
    expect(await runCount(owner.workspace.id)).toBe(before);
  });

  it('refuses a revoked cached key with an Idempotency-Key: no run, no replay, the key left free', async () => {
    // A key found revoked leaves the cache: each case gets a key of its own, cached, then revoked.
    const cases: Array<{ key: 'used' | 'fresh' | 'malformed'; other?: boolean }> = [
      { key: 'fresh' }, // the create's statement finds the key revoked
      { key: 'used' }, // 401, not the stored answer
      { key: 'used', other: true }, // 401, not 422
      { key: 'malformed' }, // 401, not 400
    ];
    for (const c of cases) {
      const { owner, definitionId, victim } = await arrange();
      const body = { definitionId, input: {} };
      // Used once while the key was active: its answer is stored under this Idempotency-Key.
      const used = `used-${randomUUID()}`;
      const first = await b.http
        .post('/v1/workflow-runs')
        .set({ 'x-api-key': victim.key, 'idempotency-key': used })
        .send(body);
      expect(first.status).toBe(201);
      await revoke(owner.key, victim.id);
      const before = await runCount(owner.workspace.id);
      const header = { used, fresh: `fresh-${randomUUID()}`, malformed: '' }[c.key];
      const res = await b.http
        .post('/v1/workflow-runs')
        .set({ 'x-api-key': victim.key, 'idempotency-key': header })
        .send(c.other ? { ...body, input: { other: true } } : body);
      expect([c, res.status, res.body, res.headers['idempotency-replayed']]).toEqual([
        c,
        401,
        INVALID_KEY,
        undefined,
      ]);
      expect(await runCount(owner.workspace.id)).toBe(before);
      if (c.key === 'fresh') {
        // The refused request holds the new Idempotency-Key for nobody: an active key's request
        // with it runs as a first one.
        const owners = await b.http
          .post('/v1/workflow-runs')
          .set({ 'x-api-key': owner.key, 'idempotency-key': header })
          .send(body);
        expect([owners.status, owners.headers['idempotency-replayed']]).toEqual([201, undefined]);
      }
    }
  });

  it('answers 401, not 403, when a revoked cached key lacks the route’s scope', async () => {
    const { owner, definitionId, victim } = await arrange(['runs:read']);
    const forbidden = await b.http
      .post('/v1/workflow-runs')
      .set('x-api-key', victim.key)
      .send({ definitionId, input: {} });
    expect(forbidden.status).toBe(403);
    await revoke(owner.key, victim.id);
    const refused = await b.http
      .post('/v1/workflow-runs')
      .set('x-api-key', victim.key)
      .send({ definitionId, input: {} });
    expect([refused.status, refused.body]).toEqual([401, INVALID_KEY]);
  });

  it('answers 401, not 429, when a revoked cached key’s workspace is over its rate limit', async () => {
    const { owner, runId, victim } = await arrange();
    for (let i = 0; i < 2; i++) {
      const res = await limited.http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', victim.key);
      expect(res.status).toBe(200);
    }
    const throttled = await limited.http
      .get(`/v1/workflow-runs/${runId}`)
      .set('x-api-key', victim.key);
    expect(throttled.status).toBe(429);
    await revoke(owner.key, victim.id);
    const refused = await limited.http
      .get(`/v1/workflow-runs/${runId}`)
      .set('x-api-key', victim.key);
    expect([refused.status, refused.body]).toEqual([401, INVALID_KEY]);
  });

  it('keeps answering the route’s own errors to an active cached key', async () => {
    const { victim } = await arrange();
    const missing = await b.http
      .get(`/v1/workflow-runs/${randomUUID()}`)
      .set('x-api-key', victim.key);
    expect(missing.status).toBe(404);
    const invalid = await b.http.post('/v1/workflow-runs').set('x-api-key', victim.key).send({});
    expect(invalid.status).toBe(400);
    const page = await b.http.get('/v1/workflow-runs?pageSize=0').set('x-api-key', victim.key);
    expect(page.status).toBe(400);
    const empty = await b.http
      .get('/v1/workflow-runs?definitionId=not-a-uuid')
      .set('x-api-key', victim.key);
    expect([empty.status, empty.body.meta]).toEqual([
      200,
      { page: 1, pageSize: 20, total: 0, totalPages: 0 },
    ]);
  });
});
