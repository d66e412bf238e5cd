import { createHash, randomUUID } from 'node:crypto';
import { SCOPES } from '../src/common/scopes';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, uniqueSlug, type WorkspaceWithKey } from './support/factories';
import { ISO_MS, UUID } from './support/formats';

const ADMIN_TOKEN = 'api-keys-admin-token';
const INVALID_KEY = { code: 'AUTH_ERROR', message: 'invalid or revoked API key' };
const MISSING_KEY = { code: 'AUTH_ERROR', message: 'missing x-api-key header' };

describe('API keys', () => {
  /** No ADMIN_TOKEN: first keys are bootstrapped with workspaceId alone. */
  let open: TestApp;
  /** ADMIN_TOKEN configured, on the same database. */
  let admin: TestApp;

  beforeAll(async () => {
    open = await createTestApp();
    admin = await createTestApp({ ADMIN_TOKEN });
  });
  afterAll(async () => {
    await admin?.close();
    await open?.close();
  });

  async function keyCount(): Promise<number> {
    const [row] = await open.sql<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    return row.n;
  }

  async function newWorkspace(t: TestApp = open): Promise<{ id: string }> {
    const headers: Record<string, string> = t === admin ? { 'x-admin-token': ADMIN_TOKEN } : {};
    const res = await t.http
      .post('/v1/workspaces')
      .set(headers)
      .send({ name: 'Keys', slug: uniqueSlug() });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  async function createKey(key: string, body: Record<string, unknown> = { name: 'extra' }) {
    return open.http.post('/v1/api-keys').set('x-api-key', key).send(body);
  }

  describe('POST /v1/api-keys without ADMIN_TOKEN (bootstrap)', () => {
    it('creates the first key of a workspace from workspaceId alone: 201 with id, workspaceId, name, key, every scope, createdAt', async () => {
      const ws = await newWorkspace();
      const res = await open.http.post('/v1/api-keys').send({ name: 'first', workspaceId: ws.id });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          workspaceId: ws.id,
          name: 'first',
          key: expect.stringMatching(/^svc_/),
          scopes: [...SCOPES],
          createdAt: expect.stringMatching(ISO_MS),
        },
      });
      const current = await open.http
        .get('/v1/workspaces/current')
        .set('x-api-key', res.body.data.key);
      expect(current.body.data.id).toBe(ws.id);
    });

    it('refuses a credential-less key once the workspace has an active key, and writes nothing', async () => {
      const { workspace } = await createWorkspaceWithKey(open.http);
      const before = await keyCount();
      const res = await open.http
        .post('/v1/api-keys')
        .send({ name: 'sneaky', workspaceId: workspace.id });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
      expect(await keyCount()).toBe(before);
    });

    it('creates exactly one key for two concurrent credential-less requests on one workspace', async () => {
      const ws = await newWorkspace();
      const answers = await Promise.all([
        open.http.post('/v1/api-keys').send({ name: 'one', workspaceId: ws.id }),
        open.http.post('/v1/api-keys').send({ name: 'two', workspaceId: ws.id }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 401]);
      const rows = await open.sql('SELECT id FROM api_keys WHERE workspace_id = $1', [ws.id]);
      expect(rows).toHaveLength(1);
    });

    it('answers 401 "missing x-api-key header" without a key or workspaceId', async () => {
      const res = await open.http.post('/v1/api-keys').send({ name: 'orphan' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
    });

    it.each([
      ['an unknown workspace', randomUUID()],
      ['a malformed workspace id', 'not-a-uuid'],
      ['an id that is almost a UUID', `${randomUUID().slice(0, -1)}g`],
      ['an id with SQL in it', "' OR 1=1 --"],
      ['an id of 100 characters', 'w'.repeat(100)],
    ])(
      'answers %s exactly like a workspace that has keys: 401 "missing x-api-key header", and writes nothing',
      async (_case, workspaceId) => {
        const { workspace } = await createWorkspaceWithKey(open.http);
        const before = await keyCount();
        const known = await open.http
          .post('/v1/api-keys')
          .send({ name: 'k', workspaceId: workspace.id });
        const probed = await open.http.post('/v1/api-keys').send({ name: 'k', workspaceId });
        expect(known.status).toBe(401);
        expect(probed.status).toBe(known.status);
        expect(probed.body).toEqual(known.body);
        expect(probed.body).toEqual({ success: false, error: MISSING_KEY });
        expect(await keyCount()).toBe(before);
      },
    );

    it('validates the body of a bootstrap request: 400 naming name, and writes nothing', async () => {
      const ws = await newWorkspace();
      const res = await open.http.post('/v1/api-keys').send({ name: '', workspaceId: ws.id });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'name', message: expect.any(String) },
      ]);
      expect(await open.sql('SELECT 1 FROM api_keys WHERE workspace_id = $1', [ws.id])).toEqual([]);
    });
  });

  describe('POST /v1/api-keys with ADMIN_TOKEN', () => {
    it('creates a key in the named workspace with x-admin-token and workspaceId', async () => {
      const ws = await newWorkspace(admin);
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'ops', workspaceId: ws.id });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ workspaceId: ws.id, name: 'ops' });
      const current = await admin.http
        .get('/v1/workspaces/current')
        .set('x-api-key', res.body.data.key);
      expect(current.status).toBe(200);
      expect(current.body.data.id).toBe(ws.id);
    });

    it('creates further keys with x-admin-token while the workspace has active keys', async () => {
      const { workspace } = await createWorkspaceWithKey(admin.http, { adminToken: ADMIN_TOKEN });
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'second', workspaceId: workspace.id });
      expect(res.status).toBe(201);
    });

    it.each([
      ['an unknown workspace', randomUUID()],
      ['a malformed workspace id', 'nope'],
    ])('answers 404 NOT_FOUND for %s, and writes nothing', async (_case, workspaceId) => {
      const before = await keyCount();
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'k', workspaceId });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(await keyCount()).toBe(before);
    });

    it('answers 401 "invalid admin token" for a wrong x-admin-token, and writes nothing', async () => {
      const ws = await newWorkspace(admin);
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', 'not-the-admin-token')
        .send({ name: 'k', workspaceId: ws.id });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'AUTH_ERROR', message: 'invalid admin token' },
      });
      expect(await admin.sql('SELECT 1 FROM api_keys WHERE workspace_id = $1', [ws.id])).toEqual(
        [],
      );
    });

    it('never bootstraps without credentials: 401 "missing x-api-key header" even for a workspace with no key', async () => {
      const ws = await newWorkspace(admin);
      const res = await admin.http.post('/v1/api-keys').send({ name: 'k', workspaceId: ws.id });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
      expect(await admin.sql('SELECT 1 FROM api_keys WHERE workspace_id = $1', [ws.id])).toEqual(
        [],
      );
    });

    it('answers 400 VALIDATION_ERROR naming workspaceId when x-admin-token comes without it', async () => {
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'k' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual([
        { field: 'workspaceId', message: expect.any(String) },
      ]);
    });

    it('creates a key with x-api-key as well, in the caller workspace', async () => {
      const { workspace, key } = await createWorkspaceWithKey(admin.http, {
        adminToken: ADMIN_TOKEN,
      });
      const res = await admin.http.post('/v1/api-keys').set('x-api-key', key).send({ name: 'k' });
      expect(res.status).toBe(201);
      expect(res.body.data.workspaceId).toBe(workspace.id);
    });
  });

  describe('POST /v1/api-keys with x-api-key', () => {
    let caller: WorkspaceWithKey;
    let other: WorkspaceWithKey;

    beforeAll(async () => {
      caller = await createWorkspaceWithKey(open.http);
      other = await createWorkspaceWithKey(open.http);
    });

    it('creates a key in the caller workspace', async () => {
      const res = await createKey(caller.key, { name: 'ci-pipeline' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(
        ['createdAt', 'id', 'key', 'name', 'scopes', 'workspaceId'].sort(),
      );
      expect(res.body.data).toMatchObject({
        workspaceId: caller.workspace.id,
        name: 'ci-pipeline',
      });
    });

    it('accepts a workspaceId naming the caller workspace', async () => {
      const res = await createKey(caller.key, { name: 'k', workspaceId: caller.workspace.id });
      expect(res.status).toBe(201);
      expect(res.body.data.workspaceId).toBe(caller.workspace.id);
    });

    it('answers 404 NOT_FOUND when workspaceId names another workspace, and creates nothing there', async () => {
      const before = await keyCount();
      const res = await createKey(caller.key, { name: 'k', workspaceId: other.workspace.id });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(await keyCount()).toBe(before);
    });

    it('answers 404 when workspaceId names another workspace even with the admin token too', async () => {
      const a = await createWorkspaceWithKey(admin.http, { adminToken: ADMIN_TOKEN });
      const b = await createWorkspaceWithKey(admin.http, { adminToken: ADMIN_TOKEN });
      const res = await admin.http
        .post('/v1/api-keys')
        .set('x-api-key', a.key)
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'k', workspaceId: b.workspace.id });
      expect(res.status).toBe(404);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a missing name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a name of 101 characters', { name: 'k'.repeat(101) }, 'name'],
      ['a name that is not a string', { name: 5 }, 'name'],
      ['a workspaceId that is not a string', { name: 'k', workspaceId: 5 }, 'workspaceId'],
      ['an empty workspaceId', { name: 'k', workspaceId: '' }, 'workspaceId'],
      ['an unknown field', { name: 'k', colour: 'red' }, 'colour'],
      ['a client-chosen key', { name: 'k', key: 'svc_mine' }, 'key'],
    ])(
      'answers 400 VALIDATION_ERROR naming the field for %s, and writes nothing',
      async (_case, body, field) => {
        const before = await keyCount();
        const res = await createKey(caller.key, body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'VALIDATION_ERROR',
            message: expect.any(String),
            details: { errors: expect.arrayContaining([{ field, message: expect.any(String) }]) },
          },
        });
        expect(await keyCount()).toBe(before);
      },
    );

    it('accepts a name of 1 and of 100 characters', async () => {
      expect((await createKey(caller.key, { name: 'k' })).status).toBe(201);
      expect((await createKey(caller.key, { name: 'k'.repeat(100) })).status).toBe(201);
    });

    it('answers 401 "missing x-api-key header" without a key', async () => {
      const res = await open.http.post('/v1/api-keys').send({ name: 'k' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
    });

    it('answers 401 "invalid or revoked API key" for an unknown key, even with a workspaceId', async () => {
      const ws = await newWorkspace();
      const res = await open.http
        .post('/v1/api-keys')
        .set('x-api-key', `svc_${'x'.repeat(43)}`)
        .send({ name: 'k', workspaceId: ws.id });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: INVALID_KEY });
      expect(await open.sql('SELECT 1 FROM api_keys WHERE workspace_id = $1', [ws.id])).toEqual([]);
    });

    it('makes keys of svc_ followed by at least 32 random bytes, each one different', async () => {
      const keys = await Promise.all(
        Array.from(
          { length: 5 },
          async () => (await createKey(caller.key)).body.data.key as string,
        ),
      );
      for (const key of keys) {
        expect(key).toMatch(/^svc_[A-Za-z0-9_-]+$/);
        expect(Buffer.from(key.slice(4), 'base64url').length).toBeGreaterThanOrEqual(32);
      }
      expect(new Set(keys).size).toBe(keys.length);
    });

    it('stores only the SHA-256 hash of the key', async () => {
      const { id, key } = (await createKey(caller.key, { name: 'hashed' })).body.data;
      const [row] = await open.sql<{ key_hash: string; whole: string }>(
        'SELECT key_hash, row_to_json(k)::text AS whole FROM api_keys k WHERE id = $1',
        [id],
      );
      expect(row.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(row.whole).not.toContain(key.slice(4));
      const anywhere = await open.sql(
        `SELECT 1 FROM api_keys k WHERE row_to_json(k)::text LIKE '%' || $1 || '%'`,
        [key.slice(4)],
      );
      expect(anywhere).toEqual([]);
    });
  });

  describe('GET /v1/api-keys', () => {
    it('lists the keys of the caller workspace only, with id, workspaceId, name, scopes, lastUsedAt, createdAt, revokedAt and never key', async () => {
      const mine = await createWorkspaceWithKey(open.http);
      const theirs = await createWorkspaceWithKey(open.http);
      const second = (await createKey(mine.key, { name: 'second' })).body.data;

      const res = await open.http.get('/v1/api-keys').set('x-api-key', mine.key);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body).not.toHaveProperty('meta');
      const items = res.body.data as Array<Record<string, unknown>>;
      expect(items.map((k) => k.id).sort()).toEqual([mine.keyId, second.id].sort());
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(
          ['createdAt', 'id', 'lastUsedAt', 'name', 'revokedAt', 'scopes', 'workspaceId'].sort(),
        );
        expect(item.workspaceId).toBe(mine.workspace.id);
        expect(item.scopes).toEqual([...SCOPES]);
        expect(item.createdAt).toMatch(ISO_MS);
      }
      expect(res.text).not.toContain(mine.key);
      expect(res.text).not.toContain(second.key);
      expect(items.map((k) => k.id)).not.toContain(theirs.keyId);
    });

    it('sets lastUsedAt once a key has been used', async () => {
      const { key } = await createWorkspaceWithKey(open.http);
      const fresh = (await createKey(key, { name: 'unused yet' })).body.data;
      const find = async () =>
        (
          (await open.http.get('/v1/api-keys').set('x-api-key', key)).body.data as Array<{
            id: string;
            lastUsedAt: string | null;
          }>
        ).find((k) => k.id === fresh.id)!;

      expect((await find()).lastUsedAt).toBeNull();
      const before = Date.now();
      expect(
        (await open.http.get('/v1/workspaces/current').set('x-api-key', fresh.key)).status,
      ).toBe(200);
      const { lastUsedAt } = await find();
      expect(lastUsedAt).toMatch(ISO_MS);
      expect(Date.parse(lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(lastUsedAt!)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('shows the calling key as used', async () => {
      const { key, keyId } = await createWorkspaceWithKey(open.http);
      const res = await open.http.get('/v1/api-keys').set('x-api-key', key);
      const self = (res.body.data as Array<{ id: string; lastUsedAt: string | null }>).find(
        (k) => k.id === keyId,
      );
      expect(self?.lastUsedAt).toMatch(ISO_MS);
    });

    it('does not write lastUsedAt on every request', async () => {
      const { key, keyId } = await createWorkspaceWithKey(open.http);
      await open.http.get('/v1/workspaces/current').set('x-api-key', key);
      const [first] = await open.sql<{ t: Date }>(
        'SELECT last_used_at AS t FROM api_keys WHERE id = $1',
        [keyId],
      );
      for (let i = 0; i < 3; i++) {
        await open.http.get('/v1/workspaces/current').set('x-api-key', key);
      }
      const [later] = await open.sql<{ t: Date }>(
        'SELECT last_used_at AS t FROM api_keys WHERE id = $1',
        [keyId],
      );
      expect(later.t.getTime()).toBe(first.t.getTime());
    });

    it('answers 401 without a key', async () => {
      const res = await open.http.get('/v1/api-keys');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
    });
  });

  describe('DELETE /v1/api-keys/:id', () => {
    it('revokes a key, which is refused on the very next request', async () => {
      const { key } = await createWorkspaceWithKey(open.http);
      const victim = (await createKey(key, { name: 'old' })).body.data;
      expect(
        (await open.http.get('/v1/workspaces/current').set('x-api-key', victim.key)).status,
      ).toBe(200);

      const res = await open.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { revoked: true } });

      for (const call of [
        open.http.get('/v1/workspaces/current'),
        open.http.get('/v1/api-keys'),
        open.http.post('/v1/api-keys').send({ name: 'revenge' }),
        open.http.delete(`/v1/api-keys/${victim.id}`),
      ]) {
        const refused = await call.set('x-api-key', victim.key);
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual({ success: false, error: INVALID_KEY });
      }
    });

    it('refuses a revoked key at once on another instance of the service too', async () => {
      const { key } = await createWorkspaceWithKey(open.http);
      const victim = (await createKey(key, { name: 'old' })).body.data;
      // The other instance has seen the key (and could have cached it).
      expect(
        (await admin.http.get('/v1/workspaces/current').set('x-api-key', victim.key)).status,
      ).toBe(200);
      expect(
        (await open.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', key)).status,
      ).toBe(200);
      const refused = await admin.http.get('/v1/workspaces/current').set('x-api-key', victim.key);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toEqual(INVALID_KEY);
    });

    it('lists the revoked key with revokedAt', async () => {
      const { key } = await createWorkspaceWithKey(open.http);
      const victim = (await createKey(key, { name: 'old' })).body.data;
      await open.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', key);
      const list = await open.http.get('/v1/api-keys').set('x-api-key', key);
      const listed = (list.body.data as Array<{ id: string; revokedAt: string | null }>).find(
        (k) => k.id === victim.id,
      );
      expect(listed?.revokedAt).toMatch(ISO_MS);
    });

    it('answers 200 {revoked: true} again for an already revoked key, keeping the first revocation time', async () => {
      const { key } = await createWorkspaceWithKey(open.http);
      const victim = (await createKey(key, { name: 'old' })).body.data;
      await open.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', key);
      const [first] = await open.sql<{ t: Date }>(
        'SELECT revoked_at AS t FROM api_keys WHERE id = $1',
        [victim.id],
      );
      const again = await open.http.delete(`/v1/api-keys/${victim.id}`).set('x-api-key', key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ success: true, data: { revoked: true } });
      const [second] = await open.sql<{ t: Date }>(
        'SELECT revoked_at AS t FROM api_keys WHERE id = $1',
        [victim.id],
      );
      expect(second.t.getTime()).toBe(first.t.getTime());
    });

    it('answers 409 CONFLICT when a key tries to revoke itself, and the key keeps working', async () => {
      const { key, keyId } = await createWorkspaceWithKey(open.http);
      const res = await open.http.delete(`/v1/api-keys/${keyId}`).set('x-api-key', key);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: 'cannot revoke the API key used for this request' },
      });
      expect((await open.http.get('/v1/workspaces/current').set('x-api-key', key)).status).toBe(
        200,
      );
    });

    it('answers 404 NOT_FOUND for a key of another workspace, which stays usable', async () => {
      const a = await createWorkspaceWithKey(open.http);
      const b = await createWorkspaceWithKey(open.http);
      const res = await open.http.delete(`/v1/api-keys/${b.keyId}`).set('x-api-key', a.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
      const [row] = await open.sql<{ revoked_at: Date | null }>(
        'SELECT revoked_at FROM api_keys WHERE id = $1',
        [b.keyId],
      );
      expect(row.revoked_at).toBeNull();
      expect((await open.http.get('/v1/workspaces/current').set('x-api-key', b.key)).status).toBe(
        200,
      );
    });

    it.each([
      ['an unknown id', randomUUID()],
      ['a malformed id', 'not-a-uuid'],
      ['a numeric id', '12345'],
      ['an id with SQL in it', "1' OR '1'='1"],
    ])('answers 404 NOT_FOUND for %s', async (_case, id) => {
      const { key } = await createWorkspaceWithKey(open.http);
      const res = await open.http
        .delete(`/v1/api-keys/${encodeURIComponent(id)}`)
        .set('x-api-key', key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });

    it('answers 401 without a key, and revokes nothing', async () => {
      const { keyId } = await createWorkspaceWithKey(open.http);
      const res = await open.http.delete(`/v1/api-keys/${keyId}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MISSING_KEY });
      const [row] = await open.sql<{ revoked_at: Date | null }>(
        'SELECT revoked_at FROM api_keys WHERE id = $1',
        [keyId],
      );
      expect(row.revoked_at).toBeNull();
    });

    it('rotates without downtime: create a new key, switch to it, revoke the old one', async () => {
      const { key: oldKey, keyId: oldId, workspace } = await createWorkspaceWithKey(open.http);
      const fresh = (await createKey(oldKey, { name: 'rotated' })).body.data;
      const check = await open.http.get('/v1/workspaces/current').set('x-api-key', fresh.key);
      expect(check.body.data.id).toBe(workspace.id);
      const revoke = await open.http.delete(`/v1/api-keys/${oldId}`).set('x-api-key', fresh.key);
      expect(revoke.status).toBe(200);
      expect((await open.http.get('/v1/workspaces/current').set('x-api-key', oldKey)).status).toBe(
        401,
      );
      expect(
        (await open.http.get('/v1/workspaces/current').set('x-api-key', fresh.key)).status,
      ).toBe(200);
    });
  });

  describe('concurrent revocations', () => {
    const LAST_KEY = {
      code: 'CONFLICT',
      message: 'cannot revoke the last active API key of the workspace; create another key first',
    };

    interface Key {
      id: string;
      key: string;
    }

    /** A workspace with `n` keys. */
    async function workspaceWithKeys(n: number): Promise<{ workspaceId: string; keys: Key[] }> {
      const first = await createWorkspaceWithKey(open.http);
      const keys: Key[] = [{ id: first.keyId, key: first.key }];
      for (let i = 1; i < n; i++) {
        const res = await createKey(first.key, { name: `k${i}` });
        keys.push({ id: res.body.data.id, key: res.body.data.key });
      }
      return { workspaceId: first.workspace.id, keys };
    }

    const keysById = new Map<string, Key>();
    async function setUp(n: number) {
      const ws = await workspaceWithKeys(n);
      for (const k of ws.keys) keysById.set(k.id, k);
      return ws;
    }

    /**
     * Sends every revocation `[caller, target]` at once, then checks what must hold whatever the
     * interleaving: the workspace keeps an active key; exactly the targets answered 200 are revoked;
     * a 401 comes from a caller revoked before its request was authenticated; a 409 names the last
     * active key, which is the one left at the end. Returns the ids still active.
     */
    async function revokeAtOnce(
      workspaceId: string,
      pairs: Array<[Key, Key]>,
    ): Promise<{ active: string[]; statuses: number[] }> {
      const answers = await Promise.all(
        pairs.map(([caller, target]) =>
          open.http.delete(`/v1/api-keys/${target.id}`).set('x-api-key', caller.key),
        ),
      );
      const rows = await open.sql<{ id: string; revoked: boolean }>(
        'SELECT id, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE workspace_id = $1',
        [workspaceId],
      );
      const active = rows.filter((r) => !r.revoked).map((r) => r.id);
      const revoked = rows.filter((r) => r.revoked).map((r) => r.id);
      expect(active.length).toBeGreaterThanOrEqual(1);
      const succeeded = pairs.filter((_, i) => answers[i].status === 200).map(([, t]) => t.id);
      expect([...revoked].sort()).toEqual([...succeeded].sort());
      answers.forEach((answer, i) => {
        const [caller, target] = pairs[i];
        if (answer.status === 200) return;
        if (answer.status === 401) {
          expect(answer.body.error).toEqual(INVALID_KEY);
          expect(revoked).toContain(caller.id);
          return;
        }
        expect(answer.status).toBe(409);
        expect(answer.body.error).toEqual(LAST_KEY);
        expect(active).toEqual([target.id]);
      });
      const survivor = keysById.get(active[0])!;
      expect(
        (await open.http.get('/v1/workspaces/current').set('x-api-key', survivor.key)).status,
      ).toBe(200);
      return { active, statuses: answers.map((a) => a.status) };
    }

    it('two keys revoking each other at once: exactly one succeeds and the other key stays active, in every round', async () => {
      for (let round = 0; round < 6; round++) {
        const { workspaceId, keys } = await setUp(2);
        const [a, b] = keys;
        const { active, statuses } = await revokeAtOnce(workspaceId, [
          [a, b],
          [b, a],
        ]);
        expect(active).toHaveLength(1);
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      }
    });

    it.each([3, 5, 8])(
      'a ring of %i keys, each revoking the next at once, never leaves the workspace without an active key',
      async (n) => {
        for (let round = 0; round < 3; round++) {
          const { workspaceId, keys } = await setUp(n);
          await revokeAtOnce(
            workspaceId,
            keys.map((caller, i) => [caller, keys[(i + 1) % n]]),
          );
        }
      },
    );

    it.each([3, 6])(
      'revoking all keys but one of %i at once, each from a different key, revokes exactly the ones answered 200 and keeps the spared one',
      async (n) => {
        for (let round = 0; round < 3; round++) {
          const { workspaceId, keys } = await setUp(n);
          const [spared, ...targets] = keys;
          // Each target is revoked by the target before it; the first by the spared key.
          const { active, statuses } = await revokeAtOnce(
            workspaceId,
            targets.map((target, i) => [i === 0 ? spared : targets[i - 1], target]),
          );
          expect(active).toContain(spared.id);
          expect(statuses).not.toContain(409);
          // The spared key's own request always goes through.
          expect(statuses[0]).toBe(200);
        }
      },
    );
  });
});
