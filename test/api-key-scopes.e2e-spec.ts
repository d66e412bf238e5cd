import { randomUUID } from 'node:crypto';
import { SCOPES } from '../src/common/scopes';
import { createTestApp, type TestApp } from './support/app';
import {
  createScopedKey,
  createWorkspaceWithKey,
  uniqueSlug,
  type WorkspaceWithKey,
} from './support/factories';
import { createDefinition, startRun } from './support/workflows';

const ADMIN_TOKEN = 'scopes-admin-token';

function lacks(scope: string) {
  return { success: false, error: { code: 'FORBIDDEN', message: `API key lacks scope ${scope}` } };
}

interface KeyView {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: string | null;
}

describe('API key scopes', () => {
  let t: TestApp;
  let admin: TestApp;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createTestApp({ ADMIN_TOKEN }, { databaseUrl: t.databaseUrl });
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await admin?.close();
    await t?.close();
  });

  async function keyCount(): Promise<number> {
    const [row] = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    return row.n;
  }

  async function listed(key: string): Promise<KeyView[]> {
    const res = await t.http.get('/v1/api-keys').set('x-api-key', key);
    expect(res.status).toBe(200);
    return res.body.data as KeyView[];
  }

  describe('creating a key', () => {
    it('gives every scope when scopes is left out, in the answer and in the list', async () => {
      const res = await t.http.post('/v1/api-keys').set('x-api-key', ws.key).send({ name: 'all' });
      expect(res.status).toBe(201);
      expect(res.body.data.scopes).toEqual([...SCOPES]);
      const row = (await listed(ws.key)).find((k) => k.id === res.body.data.id);
      expect(row?.scopes).toEqual([...SCOPES]);
    });

    it('creates a key with a subset, answered and listed in the canonical order whatever the order asked', async () => {
      const res = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', ws.key)
        .send({ name: 'reviewer', scopes: ['approvals:decide', 'runs:read', 'approvals:read'] });
      expect(res.status).toBe(201);
      const canonical = ['runs:read', 'approvals:read', 'approvals:decide'];
      expect(res.body.data.scopes).toEqual(canonical);
      expect((await listed(ws.key)).find((k) => k.id === res.body.data.id)?.scopes).toEqual(
        canonical,
      );
      const [row] = await t.sql<{ scopes: string[] }>('SELECT scopes FROM api_keys WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(row.scopes).toEqual(canonical);
    });

    it('lets a key create keys with any subset of its own scopes, up to all of them', async () => {
      const own = ['runs:read', 'runs:write', 'keys:read', 'keys:write'];
      const manager = await createScopedKey(t.http, ws.key, own);
      const same = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', manager.key)
        .send({ name: 'same', scopes: [...own].reverse() });
      expect(same.status).toBe(201);
      expect(same.body.data.scopes).toEqual(own);
      const narrower = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', manager.key)
        .send({ name: 'narrower', scopes: ['runs:read'] });
      expect(narrower.status).toBe(201);
      expect(narrower.body.data.scopes).toEqual(['runs:read']);
    });

    it('refuses a key asking for a scope the calling key lacks: 403 naming the first missing one in canonical order, and writes nothing', async () => {
      const manager = await createScopedKey(t.http, ws.key, ['runs:read', 'keys:write']);
      const before = await keyCount();
      const res = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', manager.key)
        .send({ name: 'wider', scopes: ['webhooks:write', 'runs:read', 'definitions:write'] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacks('definitions:write'));
      expect(await keyCount()).toBe(before);
    });

    it('refuses the default (every scope) to a key that does not hold them all', async () => {
      const manager = await createScopedKey(t.http, ws.key, ['runs:read', 'keys:write']);
      const before = await keyCount();
      const res = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', manager.key)
        .send({ name: 'default' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacks('definitions:read'));
      expect(await keyCount()).toBe(before);
    });

    it('never lets a key widen itself: a narrow key cannot make a key with more than it holds, nor one with all', async () => {
      const narrow = await createScopedKey(t.http, ws.key, ['keys:write']);
      for (const scopes of [['keys:write', 'keys:read'], [...SCOPES]]) {
        const res = await t.http
          .post('/v1/api-keys')
          .set('x-api-key', narrow.key)
          .send({ name: 'escalate', scopes });
        expect(res.status).toBe(403);
      }
      // And a key it may create can create nothing wider either.
      const child = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', narrow.key)
        .send({ name: 'child', scopes: ['keys:write'] });
      expect(child.status).toBe(201);
      const grandchild = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', child.body.data.key)
        .send({ name: 'grandchild', scopes: ['runs:write', 'keys:write'] });
      expect(grandchild.status).toBe(403);
      expect(grandchild.body).toEqual(lacks('runs:write'));
    });

    it('needs keys:write to create a key at all, and keys:read to list them', async () => {
      const reader = await createScopedKey(t.http, ws.key, ['keys:read', 'runs:read']);
      const before = await keyCount();
      const create = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', reader.key)
        .send({ name: 'x', scopes: ['runs:read'] });
      expect(create.status).toBe(403);
      expect(create.body).toEqual(lacks('keys:write'));
      expect(await keyCount()).toBe(before);
      expect((await t.http.get('/v1/api-keys').set('x-api-key', reader.key)).status).toBe(200);

      const writer = await createScopedKey(t.http, ws.key, ['keys:write']);
      const list = await t.http.get('/v1/api-keys').set('x-api-key', writer.key);
      expect(list.status).toBe(403);
      expect(list.body).toEqual(lacks('keys:read'));
    });

    it.each<[string, unknown, string]>([
      ['an unknown scope', ['runs:read', 'runs:admin'], 'scopes[1] must be one of'],
      ['a scope of another spelling', ['Runs:Read'], 'scopes[0] must be one of'],
      ['the old coarse names of the issue', ['webhooks:manage'], 'scopes[0] must be one of'],
      ['an empty array', [], 'scopes must contain at least one scope'],
      [
        'a duplicate',
        ['runs:read', 'costs:read', 'runs:read'],
        'scopes must not contain duplicates',
      ],
      ['a number', ['runs:read', 7], 'scopes[1] must be one of'],
      ['null in the array', [null], 'scopes[0] must be one of'],
      ['a nested array', [['runs:read']], 'scopes[0] must be one of'],
      ['an object in the array', [{ scope: 'runs:read' }], 'scopes[0] must be one of'],
      ['a string instead of an array', 'runs:read', 'scopes must be an array of scopes'],
      ['an object instead of an array', { 0: 'runs:read' }, 'scopes must be an array of scopes'],
      ['null', null, 'scopes must be an array of scopes'],
    ])(
      'answers 400 VALIDATION_ERROR naming scopes for %s, and writes nothing',
      async (_case, scopes, message) => {
        const before = await keyCount();
        const res = await t.http
          .post('/v1/api-keys')
          .set('x-api-key', ws.key)
          .send({ name: 'bad', scopes });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'VALIDATION_ERROR',
            message: expect.stringContaining(message),
            details: { errors: [{ field: 'scopes', message: expect.stringContaining(message) }] },
          },
        });
        expect(await keyCount()).toBe(before);
      },
    );

    it('checks a huge list of scopes in one pass: 400 at once, the service answering meanwhile', async () => {
      // 150,000 distinct numbers (about 1 MB): a check comparing every pair would hold the process.
      const scopes = Array.from({ length: 150_000 }, (_, i) => i);
      const [res, health] = await Promise.all([
        t.http.post('/v1/api-keys').set('x-api-key', ws.key).send({ name: 'huge', scopes }),
        t.http.get('/v1/workspaces/current').set('x-api-key', ws.key),
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'scopes', message: expect.stringContaining('scopes[0] must be one of') },
      ]);
      expect(health.status).toBe(200);
    });

    it('validates scopes before anything else on the bootstrap path too (400, nothing written)', async () => {
      const created = await t.http.post('/v1/workspaces').send({ name: 'B', slug: uniqueSlug() });
      const before = await keyCount();
      const res = await t.http
        .post('/v1/api-keys')
        .send({ name: 'first', workspaceId: created.body.data.id, scopes: ['nope'] });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0].field).toBe('scopes');
      expect(await keyCount()).toBe(before);
    });
  });

  describe('the first key of a workspace', () => {
    it('has every scope without ADMIN_TOKEN, whether scopes is left out or lists them all', async () => {
      for (const body of [{}, { scopes: [...SCOPES].reverse() }]) {
        const created = await t.http.post('/v1/workspaces').send({ name: 'W', slug: uniqueSlug() });
        const res = await t.http
          .post('/v1/api-keys')
          .send({ name: 'first', workspaceId: created.body.data.id, ...body });
        expect(res.status).toBe(201);
        expect(res.body.data.scopes).toEqual([...SCOPES]);
      }
    });

    it('refuses fewer scopes for a first key made without credentials (it alone can make the others): 400 naming scopes, nothing written', async () => {
      const created = await t.http.post('/v1/workspaces').send({ name: 'W', slug: uniqueSlug() });
      const res = await t.http
        .post('/v1/api-keys')
        .send({ name: 'first', workspaceId: created.body.data.id, scopes: ['runs:read'] });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^scopes: the first key of a workspace/),
        details: { errors: [{ field: 'scopes', message: expect.any(String) }] },
      });
      expect(
        await t.sql('SELECT 1 FROM api_keys WHERE workspace_id = $1', [created.body.data.id]),
      ).toEqual([]);
      // The workspace can still get its first key.
      const first = await t.http
        .post('/v1/api-keys')
        .send({ name: 'first', workspaceId: created.body.data.id });
      expect(first.status).toBe(201);
    });

    it('may have any scopes when the admin token creates it, and the admin token creates any key', async () => {
      const created = await admin.http
        .post('/v1/workspaces')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'A', slug: uniqueSlug() });
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'auditor', workspaceId: created.body.data.id, scopes: ['costs:read'] });
      expect(res.status).toBe(201);
      expect(res.body.data.scopes).toEqual(['costs:read']);
      const key = res.body.data.key as string;
      expect((await admin.http.get('/v1/cost/summary').set('x-api-key', key)).status).toBe(200);
      const refused = await admin.http.get('/v1/workflow-runs').set('x-api-key', key);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(lacks('runs:read'));
      const full = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'ops', workspaceId: created.body.data.id });
      expect(full.body.data.scopes).toEqual([...SCOPES]);
    });
  });

  describe('using a scoped key', () => {
    it('answers 403 outside the scopes and writes nothing; inside them it works', async () => {
      const definitionId = await createDefinition(t.http, ws.key, [{ type: 'wait', name: 'hold' }]);
      const reader = await createScopedKey(t.http, ws.key, ['runs:read']);
      const runId = await startRun(t.http, ws.key, definitionId);
      const [{ n: before }] = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM workflow_runs',
      );
      const start = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', reader.key)
        .send({ definitionId });
      expect(start.status).toBe(403);
      expect(start.body).toEqual(lacks('runs:write'));
      const cancel = await t.http
        .post(`/v1/workflow-runs/${runId}/cancel`)
        .set('x-api-key', reader.key);
      expect(cancel.body).toEqual(lacks('runs:write'));
      const [{ n: after }] = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM workflow_runs',
      );
      expect(after).toBe(before);
      const read = await t.http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', reader.key);
      expect(read.status).toBe(200);
      expect(read.body.data.status).not.toBe('CANCELLED');
    });

    it('checks the scope before looking anything up: a run of another workspace is 403 without the scope, 404 with it', async () => {
      const other = await createWorkspaceWithKey(t.http);
      const theirDefinition = await createDefinition(t.http, other.key, [
        { type: 'task', name: 'a', handler: 'noop' },
      ]);
      const theirRun = await startRun(t.http, other.key, theirDefinition);
      const noRuns = await createScopedKey(t.http, ws.key, ['costs:read']);
      const reader = await createScopedKey(t.http, ws.key, ['runs:read']);
      for (const id of [theirRun, randomUUID()]) {
        const refused = await t.http.get(`/v1/workflow-runs/${id}`).set('x-api-key', noRuns.key);
        expect(refused.body).toEqual(lacks('runs:read'));
        const missing = await t.http.get(`/v1/workflow-runs/${id}`).set('x-api-key', reader.key);
        expect(missing.status).toBe(404);
      }
    });

    it('never reaches another workspace: a scoped key naming another workspace gets 404 and creates nothing there', async () => {
      const other = await createWorkspaceWithKey(t.http);
      const manager = await createScopedKey(t.http, ws.key, ['keys:write', 'keys:read']);
      const before = await keyCount();
      const res = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', manager.key)
        .send({ name: 'k', workspaceId: other.workspace.id, scopes: ['keys:read'] });
      expect(res.status).toBe(404);
      expect(await keyCount()).toBe(before);
      const revoke = await t.http
        .delete(`/v1/api-keys/${other.keyId}`)
        .set('x-api-key', manager.key);
      expect(revoke.status).toBe(404);
      const keys = await listed(manager.key);
      expect(keys.map((k) => k.id)).not.toContain(other.keyId);
    });

    it('refuses a revoked scoped key with 401 (not 403), on routes inside and outside its scopes', async () => {
      const victim = await createScopedKey(t.http, ws.key, ['runs:read']);
      expect(
        (await t.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', ws.key)).status,
      ).toBe(200);
      for (const path of ['/v1/workflow-runs', '/v1/webhooks']) {
        const res = await t.http.get(path).set('x-api-key', victim.key);
        expect(res.status).toBe(401);
        expect(res.body.error).toEqual({
          code: 'AUTH_ERROR',
          message: 'invalid or revoked API key',
        });
      }
    });
  });

  describe('revoking', () => {
    it('lets a key revoke keys whose scopes it holds', async () => {
      const manager = await createScopedKey(t.http, ws.key, ['runs:read', 'keys:write']);
      const narrow = await createScopedKey(t.http, ws.key, ['runs:read']);
      const res = await t.http.delete(`/v1/api-keys/${narrow.id}`).set('x-api-key', manager.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { revoked: true } });
    });

    it('refuses to revoke a key with a scope the caller lacks (403 naming it), which stays usable', async () => {
      const manager = await createScopedKey(t.http, ws.key, ['runs:read', 'keys:write']);
      const wide = await createScopedKey(t.http, ws.key, ['runs:read', 'runs:write', 'costs:read']);
      const res = await t.http.delete(`/v1/api-keys/${wide.id}`).set('x-api-key', manager.key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacks('runs:write'));
      const [row] = await t.sql<{ revoked_at: Date | null }>(
        'SELECT revoked_at FROM api_keys WHERE id = $1',
        [wide.id],
      );
      expect(row.revoked_at).toBeNull();
      expect((await t.http.get('/v1/cost/summary').set('x-api-key', wide.key)).status).toBe(200);
      // The workspace's full key is out of its reach too.
      const first = await t.http.delete(`/v1/api-keys/${ws.keyId}`).set('x-api-key', manager.key);
      expect(first.body).toEqual(lacks('definitions:read'));
    });

    it('needs keys:write to revoke', async () => {
      const reader = await createScopedKey(t.http, ws.key, ['keys:read']);
      const narrow = await createScopedKey(t.http, ws.key, ['keys:read']);
      const res = await t.http.delete(`/v1/api-keys/${narrow.id}`).set('x-api-key', reader.key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacks('keys:write'));
    });
  });

  it('gives keys that existed before scopes every scope (the column default is the whole list)', async () => {
    const [row] = await t.sql<{ defaults: string[] }>(
      `SELECT array(SELECT m[1] FROM regexp_matches(column_default, '''([^'']+)''', 'g') AS m)
              AS defaults
       FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name = 'scopes'`,
    );
    expect(row.defaults).toEqual([...SCOPES]);
  });
});
