import { Controller, HttpCode, Module, Param, Post, Res } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { Envelope, Page, Run } from '../client';
import { createTestApp, type TestApp } from './support/app';
import {
  createScopedKey,
  createWorkspaceWithKey,
  uniqueSlug,
  type WorkspaceWithKey,
} from './support/factories';
import { OPERATIONS } from './support/openapi-check';
import { waitFor } from './support/wait';
import { createDefinition, startRun, waitForRun } from './support/workflows';

/**
 * The Idempotency-Key header (README "Idempotent requests"): replays, reuse, concurrency, the bound
 * on waiting, claims left behind, expiry and cleanup, scoping, bad headers, what is not stored, and
 * answers that hold a secret. Every answer of a documented route goes through the checked agent, so
 * replays and the 409/422 answers are held to the OpenAPI document too.
 */

const HEADER = 'Idempotency-Key';
const REPLAYED = 'idempotency-replayed';
const KEY_A = Buffer.alloc(32, 7).toString('base64');
const KEY_B = Buffer.alloc(32, 8).toString('base64');

/**
 * A route of an embedding application (the interceptor covers every POST, PATCH and DELETE route,
 * present and future): counts its calls per name, sets a Location, holds the first call of a name
 * while a gate for it is closed, and fails the first call of a `fail-` name with a 500.
 */
const calls = new Map<string, number>();
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();

function closeGate(name: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gates.set(name, { opened, open });
  return open;
}

@Controller('v1/test-gates')
class GateController {
  @Post(':name')
  @HttpCode(201)
  async pass(
    @Param('name') name: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ name: string; call: number }> {
    const call = (calls.get(name) ?? 0) + 1;
    calls.set(name, call);
    res.setHeader('Location', `/v1/test-gates/${name}/${call}`);
    if (call === 1) await gates.get(name)?.opened;
    if (call === 1 && name.startsWith('fail-')) throw new Error('the first call fails');
    return { name, call };
  }
}

@Module({ controllers: [GateController] })
class GateModule {}

const newKey = () => randomUUID();

async function runsOf(http: TestAgent, key: string, definitionId: string): Promise<Run[]> {
  const res = await http
    .get(`/v1/workflow-runs?definitionId=${definitionId}&pageSize=100`)
    .set('x-api-key', key);
  expect(res.status).toBe(200);
  return (res.body as Page<Run>).data;
}

describe('Idempotency-Key', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;
  /** A definition whose runs wait at their first step until resumed (nothing else happens to them). */
  let waiting: string;

  beforeAll(async () => {
    t = await createTestApp({}, { imports: [GateModule] });
    ws = await createWorkspaceWithKey(t.http);
    waiting = await createDefinition(t.http, ws.key, [{ type: 'external_event', name: 'hold' }]);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The stored row of a key, once its answer is written (a moment after it was sent). */
  const storedRow = (key: string) =>
    waitFor('the answer to be stored', async () => {
      const [row] = await t.sql<{ body: string; secret_withheld: boolean; status: number | null }>(
        'SELECT body, secret_withheld, status FROM idempotency_keys WHERE key = $1',
        [key],
      );
      return row?.status ? row : undefined;
    });

  const post = (path: string, key: string, body: object, apiKey = ws.key) =>
    t.http.post(path).set('x-api-key', apiKey).set(HEADER, key).send(body);

  describe('replays', () => {
    it('answers a repeated run creation with the first answer and starts one run', async () => {
      const key = newKey();
      const body = { definitionId: waiting, input: { order: 'A-1' } };
      const first = await post('/v1/workflow-runs', key, body);
      expect(first.status).toBe(201);
      expect(first.headers[REPLAYED]).toBeUndefined();
      const again = await post('/v1/workflow-runs', key, body);
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(again.text).toBe(first.text);
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.order === 'A-1').map((r) => r.id)).toEqual([
        first.body.data.id,
      ]);
    });

    it('treats member order and spacing of the body as the same request (canonical JSON)', async () => {
      const key = newKey();
      const first = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', ws.key)
        .set(HEADER, key)
        .set('content-type', 'application/json')
        .send(`{"definitionId":"${waiting}","input":{"b":2,"a":1}}`);
      expect(first.status).toBe(201);
      const again = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', ws.key)
        .set(HEADER, key)
        .set('content-type', 'application/json')
        .send(`{ "input": { "a": 1, "b": 2 }, "definitionId": "${waiting}" }`);
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
    });

    it('replays a definition registration: one definition version', async () => {
      const key = newKey();
      const body = {
        name: `replayed-${randomBytes(3).toString('hex')}`,
        version: '1',
        steps: [{ type: 'task', name: 'a', handler: 'noop' }],
      };
      const first = await post('/v1/workflow-definitions', key, body);
      const again = await post('/v1/workflow-definitions', key, body);
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.body).toEqual(first.body);
      // Without the header the same registration is a duplicate (409): the replay created nothing.
      const list = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      expect(
        (list.body.data as Array<{ name: string }>).filter((d) => d.name === body.name),
      ).toHaveLength(1);
    });

    it('replays a DELETE: the second answer is the first one, not a 404', async () => {
      const created = await t.http
        .post('/v1/webhooks')
        .set('x-api-key', ws.key)
        .send({ url: 'https://example.com/hook', events: ['workflow.completed'] });
      const id = created.body.data.id as string;
      const key = newKey();
      const first = await t.http
        .delete(`/v1/webhooks/${id}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key);
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual({ id, deleted: true });
      const again = await t.http
        .delete(`/v1/webhooks/${id}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key);
      expect(again.status).toBe(200);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.text).toBe(first.text);
      // Run anew (another key), the deletion finds nothing.
      const fresh = await t.http
        .delete(`/v1/webhooks/${id}`)
        .set('x-api-key', ws.key)
        .set(HEADER, newKey());
      expect(fresh.status).toBe(404);
    });

    it('replays a PATCH without changing the schedule again', async () => {
      const schedule = await t.http
        .post('/v1/schedules')
        .set('x-api-key', ws.key)
        .send({ definitionId: waiting, cron: '0 3 * * *', paused: true });
      expect(schedule.status).toBe(201);
      const id = schedule.body.data.id as string;
      const key = newKey();
      const first = await t.http
        .patch(`/v1/schedules/${id}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key)
        .send({ cron: '0 4 * * *' });
      expect(first.status).toBe(200);
      const again = await t.http
        .patch(`/v1/schedules/${id}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key)
        .send({ cron: '0 4 * * *' });
      expect(again.status).toBe(200);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.text).toBe(first.text);
      const now = await t.http.get(`/v1/schedules/${id}`).set('x-api-key', ws.key);
      expect(now.body.data.updatedAt).toBe(first.body.data.updatedAt);
      expect(now.body.data.cron).toBe('0 4 * * *');
    });

    it('replays a state transition (cancel): 200 again where a second cancel is 409', async () => {
      const runId = await startRun(t.http, ws.key, waiting);
      const key = newKey();
      const first = await post(`/v1/workflow-runs/${runId}/cancel`, key, {});
      expect(first.status).toBe(200);
      expect(first.body.data.status).toBe('CANCELLED');
      const again = await post(`/v1/workflow-runs/${runId}/cancel`, key, {});
      expect(again.status).toBe(200);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.text).toBe(first.text);
      const fresh = await post(`/v1/workflow-runs/${runId}/cancel`, newKey(), {});
      expect(fresh.status).toBe(409);
    });

    it('stores and replays a 404 the route gave (the state it found)', async () => {
      const key = newKey();
      const body = { definitionId: randomUUID() };
      const first = await post('/v1/workflow-runs', key, body);
      expect(first.status).toBe(404);
      const again = await post('/v1/workflow-runs', key, body);
      expect(again.status).toBe(404);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.text).toBe(first.text);
    });

    it('accepts the quoted form of the IETF draft as the same key', async () => {
      const key = `order-${randomBytes(4).toString('hex')}`;
      const body = { definitionId: waiting, input: { quoted: key } };
      const first = await post('/v1/workflow-runs', key, body);
      const again = await post('/v1/workflow-runs', `"${key}"`, body);
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
    });

    it('carries the Location a route sets, on a route of an embedding application', async () => {
      const key = newKey();
      const gate = `located-${randomBytes(3).toString('hex')}`;
      const first = await request(t.baseUrl)
        .post(`/v1/test-gates/${gate}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key);
      expect(first.status).toBe(201);
      expect(first.headers.location).toBe(`/v1/test-gates/${gate}/1`);
      const again = await request(t.baseUrl)
        .post(`/v1/test-gates/${gate}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key);
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.headers.location).toBe(`/v1/test-gates/${gate}/1`);
      expect(again.body).toEqual({ success: true, data: { name: gate, call: 1 } });
      expect(calls.get(gate)).toBe(1);
    });

    it('works beside the run body idempotencyKey, which keeps its contract behaviour', async () => {
      const runKey = `body-${randomBytes(4).toString('hex')}`;
      const body = { definitionId: waiting, idempotencyKey: runKey };
      const header = newKey();
      const first = await post('/v1/workflow-runs', header, body);
      expect(first.status).toBe(201);
      const replayed = await post('/v1/workflow-runs', header, body);
      expect(replayed.status).toBe(201);
      expect(replayed.headers[REPLAYED]).toBe('true');
      // Another header, the same body key: the contract's 200 with the existing run.
      const existing = await post('/v1/workflow-runs', newKey(), body);
      expect(existing.status).toBe(200);
      expect(existing.headers[REPLAYED]).toBeUndefined();
      expect(existing.body.data.id).toBe(first.body.data.id);
      // And without any header, the same.
      const plain = await t.http.post('/v1/workflow-runs').set('x-api-key', ws.key).send(body);
      expect(plain.status).toBe(200);
      expect(plain.body.data.id).toBe(first.body.data.id);
    });
  });

  describe('reuse', () => {
    it('answers 422 IDEMPOTENCY_KEY_REUSED for another body, route or method, and changes nothing', async () => {
      const key = newKey();
      const first = await post('/v1/workflow-runs', key, {
        definitionId: waiting,
        input: { n: 1 },
      });
      expect(first.status).toBe(201);
      const otherBody = await post('/v1/workflow-runs', key, {
        definitionId: waiting,
        input: { n: 2 },
      });
      expect(otherBody.status).toBe(422);
      expect(otherBody.body.error).toEqual({
        code: 'IDEMPOTENCY_KEY_REUSED',
        message:
          'this Idempotency-Key was already used for POST /v1/workflow-runs with another body; ' +
          'use a new key for another request',
        details: {
          errors: [
            {
              field: 'Idempotency-Key',
              message:
                'this Idempotency-Key was already used for POST /v1/workflow-runs with another ' +
                'body; use a new key for another request',
            },
          ],
        },
      });
      const otherRoute = await post('/v1/workflow-definitions', key, {
        name: 'never-made',
        version: '1',
        steps: [{ type: 'task', name: 'a', handler: 'noop' }],
      });
      expect(otherRoute.status).toBe(422);
      expect(otherRoute.body.error.message).toBe(
        'this Idempotency-Key was already used for POST /v1/workflow-runs; use a new key for another request',
      );
      const otherMethod = await t.http
        .delete(`/v1/webhooks/${randomUUID()}`)
        .set('x-api-key', ws.key)
        .set(HEADER, key);
      expect(otherMethod.status).toBe(422);
      expect(otherMethod.headers[REPLAYED]).toBeUndefined();
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.n === 2)).toEqual([]);
      const defs = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      expect((defs.body.data as Array<{ name: string }>).some((d) => d.name === 'never-made')).toBe(
        false,
      );
    });
  });

  describe('concurrency', () => {
    it('gives 20 identical requests sent at once one effect and one answer', async () => {
      const key = newKey();
      const body = { definitionId: waiting, input: { burst: key } };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post('/v1/workflow-runs', key, body)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      expect(new Set(answers.map((a) => a.text)).size).toBe(1);
      expect(answers.filter((a) => a.headers[REPLAYED] === 'true')).toHaveLength(19);
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.burst === key)).toHaveLength(1);
    });

    it('lets a duplicate on another replica wait for the first answer, and answers 409 past the wait', async () => {
      const patient = await createTestApp(
        { IDEMPOTENCY_WAIT_MS: '60000' },
        { databaseUrl: t.databaseUrl, imports: [GateModule] },
      );
      const impatient = await createTestApp(
        { IDEMPOTENCY_WAIT_MS: '0' },
        { databaseUrl: t.databaseUrl, imports: [GateModule] },
      );
      try {
        const gate = `held-${randomBytes(3).toString('hex')}`;
        const open = closeGate(gate);
        const key = newKey();
        const send = (app: TestApp) =>
          request(app.baseUrl)
            .post(`/v1/test-gates/${gate}`)
            .set('x-api-key', ws.key)
            .set(HEADER, key)
            .then((r) => r);
        const first = send(t);
        await waitFor('the first request to claim the key', async () => {
          const rows = await t.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
          return rows.length === 1 ? true : undefined;
        });
        // Neither duplicate reaches the route's handler: one is refused, the other replays.
        const refused = await send(impatient);
        expect(refused.status).toBe(409);
        expect(refused.body.error).toEqual({
          code: 'CONFLICT',
          message: 'A request with this Idempotency-Key is still in progress',
        });
        const waited = send(patient);
        open();
        const [a, b] = await Promise.all([first, waited]);
        expect(a.status).toBe(201);
        expect(b.status).toBe(201);
        expect(b.headers[REPLAYED]).toBe('true');
        expect(b.text).toBe(a.text);
        expect(calls.get(gate)).toBe(1);
      } finally {
        await patient.close();
        await impatient.close();
      }
    });

    it('takes over the claim of a request that outlived its lease, and keeps the answer of the one that took it', async () => {
      const leased = await createTestApp(
        { IDEMPOTENCY_CLAIM_LEASE_MS: '1000', IDEMPOTENCY_WAIT_MS: '0' },
        { databaseUrl: t.databaseUrl, imports: [GateModule] },
      );
      try {
        const gate = `stuck-${randomBytes(3).toString('hex')}`;
        const open = closeGate(gate);
        const key = newKey();
        const send = () =>
          request(leased.baseUrl)
            .post(`/v1/test-gates/${gate}`)
            .set('x-api-key', ws.key)
            .set(HEADER, key)
            .then((r) => r);
        // The first call hangs, as in a process that died holding the claim.
        const stuck = send();
        await waitFor('the claim to be left past its lease', async () => {
          const rows = await leased.sql(
            'SELECT 1 FROM idempotency_keys WHERE key = $1 AND locked_until <= now()',
            [key],
          );
          return rows.length === 1 ? true : undefined;
        });
        const takeover = await send();
        expect(takeover.status).toBe(201);
        expect(takeover.headers[REPLAYED]).toBeUndefined();
        expect(takeover.body.data).toEqual({ name: gate, call: 2 });
        open();
        expect((await stuck).body.data).toEqual({ name: gate, call: 1 });
        const replay = await send();
        expect(replay.headers[REPLAYED]).toBe('true');
        expect(replay.body.data).toEqual({ name: gate, call: 2 });
      } finally {
        await leased.close();
      }
    });
  });

  it('stores an answer sent just before the service stops', async () => {
    const stopping = await createTestApp({}, { databaseUrl: t.databaseUrl });
    const key = newKey();
    const res = await stopping.http
      .post('/v1/workflow-runs')
      .set('x-api-key', ws.key)
      .set(HEADER, key)
      .send({ definitionId: waiting, input: { stopping: key } });
    expect(res.status).toBe(201);
    await stopping.close();
    const [row] = await t.sql<{ status: number; body: string }>(
      'SELECT status, body FROM idempotency_keys WHERE key = $1',
      [key],
    );
    expect(row).toEqual({ status: 201, body: res.text });
  });

  describe('expiry', () => {
    it('never replays an expired key, and the cleanup deletes expired keys', async () => {
      // No cleanup in this process's lifetime: the expired row is still there when the key comes again.
      const shortLived = await createTestApp(
        { IDEMPOTENCY_KEY_TTL_MS: '1000' },
        { databaseUrl: t.databaseUrl },
      );
      const key = newKey();
      const body = { definitionId: waiting, input: { expiring: key } };
      let second: string;
      try {
        const first = await shortLived.http
          .post('/v1/workflow-runs')
          .set('x-api-key', ws.key)
          .set(HEADER, key)
          .send(body);
        expect(first.status).toBe(201);
        await waitFor('the key to expire', async () => {
          const rows = await t.sql(
            'SELECT 1 FROM idempotency_keys WHERE key = $1 AND expires_at <= now()',
            [key],
          );
          return rows.length === 1 ? true : undefined;
        });
        const again = await shortLived.http
          .post('/v1/workflow-runs')
          .set('x-api-key', ws.key)
          .set(HEADER, key)
          .send(body);
        expect(again.status).toBe(201);
        expect(again.headers[REPLAYED]).toBeUndefined();
        expect(again.body.data.id).not.toBe(first.body.data.id);
        second = again.body.data.id as string;
      } finally {
        await shortLived.close();
      }
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.expiring === key)).toHaveLength(2);
      expect(second).toBeDefined();

      const kept = newKey();
      const live = await post('/v1/workflow-runs', kept, { definitionId: waiting });
      expect(live.status).toBe(201);
      const cleaner = await createTestApp(
        { IDEMPOTENCY_KEY_TTL_MS: '1000', IDEMPOTENCY_CLEANUP_INTERVAL_MS: '100' },
        { databaseUrl: t.databaseUrl },
      );
      try {
        await waitFor('the cleanup to delete the expired key', async () => {
          const rows = await t.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
          return rows.length === 0 ? true : undefined;
        });
        const lease = await t.sql<{ holder: string }>(
          `SELECT holder FROM job_leases WHERE name = 'idempotency-cleanup'`,
        );
        expect(lease).toHaveLength(1);
        // A key that has not expired is kept.
        expect(await t.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [kept])).toHaveLength(
          1,
        );
      } finally {
        await cleaner.close();
      }
    });
  });

  describe('scopes', () => {
    it('keeps keys per workspace: the same key in two workspaces is two keys', async () => {
      const other = await createWorkspaceWithKey(t.http);
      const key = newKey();
      const body = {
        name: 'same-name-in-two-workspaces',
        version: '1',
        steps: [{ type: 'task', name: 'a', handler: 'noop' }],
      };
      const mine = await post('/v1/workflow-definitions', key, body, ws.key);
      const theirs = await post('/v1/workflow-definitions', key, body, other.key);
      expect([mine.status, theirs.status]).toEqual([201, 201]);
      expect(theirs.headers[REPLAYED]).toBeUndefined();
      expect(theirs.body.data.workspaceId).toBe(other.workspace.id);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    });

    it('replays to every API key of the workspace on a route whose answer holds no secret', async () => {
      const second = await createScopedKey(t.http, ws.key, ['runs:write']);
      const key = newKey();
      const body = { definitionId: waiting, input: { twoKeys: key } };
      const first = await post('/v1/workflow-runs', key, body, ws.key);
      expect(first.status).toBe(201);
      const again = await post('/v1/workflow-runs', key, body, second.key);
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(again.text).toBe(first.text);
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.twoKeys === key)).toHaveLength(1);
    });

    it('gives the key back when the API key may not make the request, or is revoked, and claims nothing for an unknown key', async () => {
      const reader = await createScopedKey(t.http, ws.key, ['runs:read']);
      const revoked = await createScopedKey(t.http, ws.key, ['runs:write']);
      const gone = await t.http.delete(`/v1/api-keys/${revoked.id}`).set('x-api-key', ws.key);
      expect(gone.status).toBe(200);
      const key = newKey();
      const body = { definitionId: waiting, input: { refused: key } };
      const forbidden = await post('/v1/workflow-runs', key, body, reader.key);
      expect(forbidden.status).toBe(403);
      const unauthenticated = await post('/v1/workflow-runs', key, body, revoked.key);
      expect(unauthenticated.status).toBe(401);
      const unknown = await post('/v1/workflow-runs', key, body, `svc_${'x'.repeat(43)}`);
      expect(unknown.status).toBe(401);
      await waitFor('the refused request to give its key back', async () => {
        const rows = await t.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
        return rows.length === 0 ? true : undefined;
      });
      const allowed = await post('/v1/workflow-runs', key, body);
      expect(allowed.status).toBe(201);
      expect(allowed.headers[REPLAYED]).toBeUndefined();
      const runs = await runsOf(t.http, ws.key, waiting);
      expect(runs.filter((r) => r.input.refused === key)).toHaveLength(1);
    });

    it('keys requests without an API key by client address (TRUST_PROXY aware)', async () => {
      const proxied = await createTestApp({ TRUST_PROXY: '1' }, { databaseUrl: t.databaseUrl });
      try {
        const key = newKey();
        const body = { name: 'Acme', slug: uniqueSlug('idem') };
        const from = (address: string) =>
          proxied.http
            .post('/v1/workspaces')
            .set('X-Forwarded-For', address)
            .set(HEADER, key)
            .send(body);
        const first = await from('203.0.113.5');
        expect(first.status).toBe(201);
        const again = await from('203.0.113.5');
        expect(again.status).toBe(201);
        expect(again.headers[REPLAYED]).toBe('true');
        expect(again.text).toBe(first.text);
        // Another client with the same key is another key: its request runs, and the slug is taken.
        const elsewhere = await from('203.0.113.6');
        expect(elsewhere.status).toBe(409);
        expect(elsewhere.headers[REPLAYED]).toBeUndefined();
        const rows = await t.sql<{ scope: string }>(
          'SELECT scope FROM idempotency_keys WHERE key = $1 ORDER BY scope',
          [key],
        );
        expect(rows.map((r) => r.scope)).toEqual(['ip:203.0.113.5', 'ip:203.0.113.6']);
      } finally {
        await proxied.close();
      }
    });
  });

  describe('bad headers', () => {
    it.each<[string, string | string[]]>([
      ['empty', ''],
      ['256 characters long', 'k'.repeat(256)],
      ['not ASCII', 'clé'],
      ['an unterminated quoted string', '"abc'],
      ['a quoted string with text after it', '"abc"d'],
      ['an empty quoted string', '""'],
      ['sent twice', ['one', 'two']],
    ])(
      'answers 400 naming the header for a key that is %s, and runs nothing',
      async (_case, value) => {
        const input = { bad: randomUUID() };
        const res = await t.http
          .post('/v1/workflow-runs')
          .set('x-api-key', ws.key)
          // Two values are sent as two field lines.
          .set(HEADER, value as string)
          .send({ definitionId: waiting, input });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details.errors[0].field).toBe('Idempotency-Key');
        const runs = await runsOf(t.http, ws.key, waiting);
        expect(runs.filter((r) => r.input.bad === input.bad)).toEqual([]);
      },
    );

    it('answers 400 on a DELETE too, and ignores the header on a GET', async () => {
      const del = await t.http
        .delete(`/v1/webhooks/${randomUUID()}`)
        .set('x-api-key', ws.key)
        .set(HEADER, 'x'.repeat(300));
      expect(del.status).toBe(400);
      expect(del.body.error.details.errors).toEqual([
        {
          field: 'Idempotency-Key',
          message: 'must be 1-255 printable ASCII characters, or such a string in double quotes',
        },
      ]);
      const get = await t.http
        .get('/v1/workflow-runs')
        .set('x-api-key', ws.key)
        .set(HEADER, 'x'.repeat(300));
      expect(get.status).toBe(200);
    });

    it('checks credentials first: 401 without a valid key, whatever the header', async () => {
      const res = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', 'svc_not-a-key')
        .set(HEADER, '')
        .send({ definitionId: waiting });
      expect(res.status).toBe(401);
    });
  });

  describe('answers that are not stored', () => {
    it('lets an invalid request be corrected and sent again with the same key', async () => {
      const key = newKey();
      const invalid = await post('/v1/workflow-runs', key, { input: { fixed: key } });
      expect(invalid.status).toBe(400);
      const fixed = await post('/v1/workflow-runs', key, {
        definitionId: waiting,
        input: { fixed: key },
      });
      expect(fixed.status).toBe(201);
      expect(fixed.headers[REPLAYED]).toBeUndefined();
    });

    it('lets a request that failed with a 500 be retried with the same key', async () => {
      const gate = `fail-${randomBytes(3).toString('hex')}`;
      const key = newKey();
      const send = () =>
        request(t.baseUrl).post(`/v1/test-gates/${gate}`).set('x-api-key', ws.key).set(HEADER, key);
      const failed = await send();
      expect(failed.status).toBe(500);
      const retried = await send();
      expect(retried.status).toBe(201);
      expect(retried.headers[REPLAYED]).toBeUndefined();
      expect(retried.body.data).toEqual({ name: gate, call: 2 });
      const replayed = await send();
      expect(replayed.headers[REPLAYED]).toBe('true');
      expect(calls.get(gate)).toBe(2);
    });

    it('never stores an answer that sets a cookie: each console sign-in runs', async () => {
      const key = newKey();
      const signIn = () =>
        t.http
          .post('/v1/console/session')
          .set('Origin', t.baseUrl)
          .set(HEADER, key)
          .send({ apiKey: ws.key, reviewerName: 'Ada' });
      const first = await signIn();
      expect(first.status).toBe(201);
      expect(first.headers['set-cookie']).toBeDefined();
      const again = await signIn();
      expect(again.status).toBe(201);
      expect(again.headers[REPLAYED]).toBeUndefined();
      expect(again.headers['set-cookie']).toBeDefined();
      await waitFor('the key to be given back', async () => {
        const rows = await t.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
        return rows.length === 0 ? true : undefined;
      });
    });
  });

  describe('answers that hold a secret', () => {
    const hook = { url: 'https://example.com/secret-hook', events: ['workflow.failed'] };

    it('stores a webhook secret encrypted and replays it only to the same API key', async () => {
      const encrypted = await createTestApp(
        { ENCRYPTION_KEY: KEY_A },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const key = newKey();
        const send = (apiKey: string) =>
          encrypted.http.post('/v1/webhooks').set('x-api-key', apiKey).set(HEADER, key).send(hook);
        const first = await send(ws.key);
        expect(first.status).toBe(201);
        const secret = first.body.data.secret as string;
        const row = await storedRow(key);
        expect(row.body).toMatch(/^enc:v1:/);
        expect(row.body).not.toContain(secret);
        expect(row.body).not.toContain(secret.slice('whsec_'.length, 20));
        expect(row.secret_withheld).toBe(false);
        const again = await send(ws.key);
        expect(again.status).toBe(201);
        expect(again.headers[REPLAYED]).toBe('true');
        expect(again.text).toBe(first.text);
        // Another key of the workspace, the same Idempotency-Key and body: no secret for it.
        const second = await encrypted.http
          .post('/v1/api-keys')
          .set('x-api-key', ws.key)
          .send({ name: 'second' });
        const other = await send(second.body.data.key as string);
        expect(other.status).toBe(422);
        expect(other.body.error.message).toBe(
          'this Idempotency-Key was already used by another API key, and the answer holds a ' +
            'secret that is replayed only to that key',
        );
        expect(other.text).not.toContain(secret);
      } finally {
        await encrypted.close();
      }
    });

    it('replays an encrypted answer after a key rotation while the former key is kept, 409 once it is gone', async () => {
      const key = newKey();
      const body = { ...hook, url: `${hook.url}/rotated-${key}` };
      const send = (app: TestApp) =>
        app.http.post('/v1/webhooks').set('x-api-key', ws.key).set(HEADER, key).send(body);
      const before = await createTestApp({ ENCRYPTION_KEY: KEY_A }, { databaseUrl: t.databaseUrl });
      let first;
      try {
        first = await send(before);
        expect(first.status).toBe(201);
      } finally {
        await before.close();
      }
      const rotated = await createTestApp(
        { ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: KEY_A },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const again = await send(rotated);
        expect(again.status).toBe(201);
        expect(again.headers[REPLAYED]).toBe('true');
        expect(again.text).toBe(first.text);
      } finally {
        await rotated.close();
      }
      const withoutA = await createTestApp(
        { ENCRYPTION_KEY: KEY_B },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const lost = await send(withoutA);
        expect(lost.status).toBe(409);
        expect(lost.body.error.message).toBe(
          'the stored answer to this Idempotency-Key cannot be decrypted: it was encrypted with a ' +
            'key this server no longer has',
        );
        expect(lost.text).not.toContain(first.body.data.secret as string);
      } finally {
        await withoutA.close();
      }
    });

    it('does not store a webhook secret without ENCRYPTION_KEY: a replay is 409 naming the webhook', async () => {
      const key = newKey();
      const first = await post('/v1/webhooks', key, { ...hook, url: `${hook.url}/${key}` });
      expect(first.status).toBe(201);
      const { id, secret } = first.body.data as { id: string; secret: string };
      const row = await storedRow(key);
      expect(row.secret_withheld).toBe(true);
      expect(row.body).not.toContain(secret);
      expect(JSON.parse(row.body).data.id).toBe(id);
      const again = await post('/v1/webhooks', key, { ...hook, url: `${hook.url}/${key}` });
      expect(again.status).toBe(409);
      expect(again.body.error.message).toBe(
        `the first request with this Idempotency-Key created webhook ${id}; its secret is shown ` +
          'only once and is not stored without ENCRYPTION_KEY, so that answer cannot be replayed',
      );
      const list = await t.http.get('/v1/webhooks').set('x-api-key', ws.key);
      expect(
        (list.body.data as Array<{ url: string }>).filter((w) => w.url === `${hook.url}/${key}`),
      ).toHaveLength(1);
    });

    it('never stores a created API key, even with ENCRYPTION_KEY: a replay is 409 naming it', async () => {
      const encrypted = await createTestApp(
        { ENCRYPTION_KEY: KEY_A },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const key = newKey();
        const send = () =>
          encrypted.http
            .post('/v1/api-keys')
            .set('x-api-key', ws.key)
            .set(HEADER, key)
            .send({ name: `kept-once-${key}` });
        const first = await send();
        expect(first.status).toBe(201);
        const created = first.body.data as { id: string; key: string };
        const row = await storedRow(key);
        expect(row.secret_withheld).toBe(true);
        expect(row.body).not.toContain(created.key);
        expect(row.body).not.toContain(created.key.slice('svc_'.length));
        const again = await send();
        expect(again.status).toBe(409);
        expect(again.body.error.message).toBe(
          `the first request with this Idempotency-Key created API key ${created.id}; its key is ` +
            'shown only once and is never stored, so that answer cannot be replayed',
        );
        const keys = await encrypted.http.get('/v1/api-keys').set('x-api-key', ws.key);
        expect(
          (keys.body.data as Array<{ name: string }>).filter((k) => k.name === `kept-once-${key}`),
        ).toHaveLength(1);
      } finally {
        await encrypted.close();
      }
    });
  });

  it('documents the header, 409 and 422 on every POST, PATCH and DELETE operation', () => {
    const mutating = OPERATIONS.filter((o) => ['POST', 'PATCH', 'DELETE'].includes(o.method));
    expect(mutating.length).toBeGreaterThanOrEqual(15);
    for (const op of mutating) {
      expect([op.method, op.template, Object.keys(op.responses)]).toEqual([
        op.method,
        op.template,
        expect.arrayContaining(['400', '409', '422']),
      ]);
    }
  });

  it('leaves a run started with a key to run as any other', async () => {
    const def = await createDefinition(t.http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    const res = await post('/v1/workflow-runs', newKey(), { definitionId: def });
    expect(res.status).toBe(201);
    await waitForRun(t.http, ws.key, (res.body as Envelope<Run>).data.id, 'COMPLETED');
  });
});
