import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, uniqueSlug } from './support/factories';
import { ISO_MS, UUID } from './support/formats';

const ADMIN_TOKEN = 'workspaces-admin-token';

describe('workspaces', () => {
  /** No ADMIN_TOKEN: workspace creation is open. */
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

  async function workspaceCount(): Promise<number> {
    const [row] = await open.sql<{ n: number }>('SELECT count(*)::int AS n FROM workspaces');
    return row.n;
  }

  describe('POST /v1/workspaces without ADMIN_TOKEN', () => {
    it('creates a workspace without credentials and answers 201 with id, name, slug, createdAt, updatedAt', async () => {
      const slug = uniqueSlug();
      const res = await open.http.post('/v1/workspaces').send({ name: 'Acme Corp', slug });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          name: 'Acme Corp',
          slug,
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
        },
      });
      const rows = await open.sql('SELECT name, slug FROM workspaces WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(rows).toEqual([{ name: 'Acme Corp', slug }]);
    });

    it('accepts the boundaries: name of 1 and 100 characters, slug of 1 and 50 characters', async () => {
      const short = await open.http.post('/v1/workspaces').send({ name: 'a', slug: '7' });
      expect(short.status).toBe(201);
      const longSlug = `${uniqueSlug()}-`.padEnd(50, 'z');
      const long = await open.http
        .post('/v1/workspaces')
        .send({ name: 'n'.repeat(100), slug: longSlug });
      expect(long.status).toBe(201);
      expect(long.body.data).toMatchObject({ name: 'n'.repeat(100), slug: longSlug });
    });

    it('accepts a slug of digits and hyphens only', async () => {
      const res = await open.http.post('/v1/workspaces').send({ name: 'Digits', slug: '-0-9-' });
      expect(res.status).toBe(201);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a missing name', { slug: 'ok-slug' }, 'name'],
      ['an empty name', { name: '', slug: 'ok-slug' }, 'name'],
      ['a name of 101 characters', { name: 'n'.repeat(101), slug: 'ok-slug' }, 'name'],
      ['a name that is not a string', { name: 42, slug: 'ok-slug' }, 'name'],
      ['a null name', { name: null, slug: 'ok-slug' }, 'name'],
      ['a missing slug', { name: 'Acme' }, 'slug'],
      ['an empty slug', { name: 'Acme', slug: '' }, 'slug'],
      ['a slug of 51 characters', { name: 'Acme', slug: 's'.repeat(51) }, 'slug'],
      ['a slug with capitals', { name: 'Acme', slug: 'Acme' }, 'slug'],
      ['a slug with a space', { name: 'Acme', slug: 'acme corp' }, 'slug'],
      ['a slug with an underscore', { name: 'Acme', slug: 'acme_corp' }, 'slug'],
      ['a slug with non-ASCII letters', { name: 'Acme', slug: 'café' }, 'slug'],
      ['a slug that is not a string', { name: 'Acme', slug: 12 }, 'slug'],
      ['an unknown field', { name: 'Acme', slug: 'ok-slug', plan: 'pro' }, 'plan'],
      ['a client-chosen id', { id: 'x', name: 'Acme', slug: 'ok-slug' }, 'id'],
    ])(
      'answers 400 VALIDATION_ERROR naming the field for %s, and writes nothing',
      async (_case, body, field) => {
        const before = await workspaceCount();
        const res = await open.http.post('/v1/workspaces').send(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'VALIDATION_ERROR',
            message: expect.any(String),
            details: { errors: expect.arrayContaining([{ field, message: expect.any(String) }]) },
          },
        });
        expect(await workspaceCount()).toBe(before);
      },
    );

    it('answers 400 naming both fields for an empty body', async () => {
      const res = await open.http.post('/v1/workspaces').send({});
      expect(res.status).toBe(400);
      const fields = (res.body.error.details.errors as Array<{ field: string }>).map(
        (e) => e.field,
      );
      expect(new Set(fields)).toEqual(new Set(['name', 'slug']));
    });

    it('answers 409 CONFLICT when the slug is taken, and writes nothing', async () => {
      const slug = uniqueSlug();
      expect((await open.http.post('/v1/workspaces').send({ name: 'First', slug })).status).toBe(
        201,
      );
      const before = await workspaceCount();
      const res = await open.http.post('/v1/workspaces').send({ name: 'Second', slug });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: expect.stringContaining(slug) },
      });
      expect(await workspaceCount()).toBe(before);
    });

    it('gives one 201 and one 409 for two concurrent creations of one slug', async () => {
      const slugs = Array.from({ length: 5 }, () => uniqueSlug('race'));
      const answers = await Promise.all(
        slugs.flatMap((slug) => [
          open.http.post('/v1/workspaces').send({ name: 'A', slug }),
          admin.http
            .post('/v1/workspaces')
            .set('x-admin-token', ADMIN_TOKEN)
            .send({ name: 'B', slug }),
        ]),
      );
      for (let i = 0; i < slugs.length; i++) {
        const statuses = [answers[2 * i].status, answers[2 * i + 1].status].sort();
        expect(statuses).toEqual([201, 409]);
      }
      const rows = await open.sql<{ slug: string; n: number }>(
        'SELECT slug, count(*)::int AS n FROM workspaces WHERE slug = ANY($1) GROUP BY slug',
        [slugs],
      );
      expect(rows).toHaveLength(slugs.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
    });

    it('ignores an x-admin-token header when no ADMIN_TOKEN is configured', async () => {
      const res = await open.http
        .post('/v1/workspaces')
        .set('x-admin-token', 'anything-at-all')
        .send({ name: 'Acme', slug: uniqueSlug() });
      expect(res.status).toBe(201);
    });
  });

  describe('POST /v1/workspaces with ADMIN_TOKEN', () => {
    it('creates the workspace with the right x-admin-token', async () => {
      const slug = uniqueSlug();
      const res = await admin.http
        .post('/v1/workspaces')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'Admin made', slug });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ name: 'Admin made', slug });
    });

    it('answers 401 AUTH_ERROR without x-admin-token, and writes nothing', async () => {
      const before = await workspaceCount();
      const res = await admin.http.post('/v1/workspaces').send({ name: 'X', slug: uniqueSlug() });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'AUTH_ERROR', message: 'missing x-admin-token header' },
      });
      expect(await workspaceCount()).toBe(before);
    });

    it.each([
      ['a wrong token', 'workspaces-admin-tokeN'],
      ['a prefix of the token', ADMIN_TOKEN.slice(0, -1)],
      ['a longer token', `${ADMIN_TOKEN}x`],
    ])(
      'answers 401 AUTH_ERROR "invalid admin token" for %s, and writes nothing',
      async (_case, token) => {
        const before = await workspaceCount();
        const res = await admin.http
          .post('/v1/workspaces')
          .set('x-admin-token', token)
          .send({ name: 'X', slug: uniqueSlug() });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'AUTH_ERROR', message: 'invalid admin token' },
        });
        expect(await workspaceCount()).toBe(before);
      },
    );

    it('does not accept an API key instead of the admin token', async () => {
      const { key } = await createWorkspaceWithKey(admin.http, { adminToken: ADMIN_TOKEN });
      const res = await admin.http
        .post('/v1/workspaces')
        .set('x-api-key', key)
        .send({ name: 'X', slug: uniqueSlug() });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH_ERROR');
    });

    it('checks the admin token before the body: 401 for an invalid body without a token', async () => {
      const res = await admin.http.post('/v1/workspaces').send({ name: '' });
      expect(res.status).toBe(401);
    });

    it('answers 400 VALIDATION_ERROR for an invalid body with the right token', async () => {
      const res = await admin.http
        .post('/v1/workspaces')
        .set('x-admin-token', ADMIN_TOKEN)
        .send({ name: 'Acme', slug: 'NOT VALID' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'slug', message: expect.any(String) },
      ]);
    });

    it('answers 409 CONFLICT for a taken slug', async () => {
      const slug = uniqueSlug();
      const send = () =>
        admin.http
          .post('/v1/workspaces')
          .set('x-admin-token', ADMIN_TOKEN)
          .send({ name: 'A', slug });
      expect((await send()).status).toBe(201);
      const again = await send();
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
    });
  });

  describe('GET /v1/workspaces/current', () => {
    it('answers 200 with the workspace of the calling key', async () => {
      const { workspace, key } = await createWorkspaceWithKey(open.http);
      const res = await open.http.get('/v1/workspaces/current').set('x-api-key', key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: workspace });
    });

    it('shows each key its own workspace only', async () => {
      const a = await createWorkspaceWithKey(open.http);
      const b = await createWorkspaceWithKey(open.http);
      const seenByA = await open.http.get('/v1/workspaces/current').set('x-api-key', a.key);
      const seenByB = await open.http.get('/v1/workspaces/current').set('x-api-key', b.key);
      expect(seenByA.body.data.id).toBe(a.workspace.id);
      expect(seenByB.body.data.id).toBe(b.workspace.id);
    });

    it('answers 401 "missing x-api-key header" without a key', async () => {
      const res = await open.http.get('/v1/workspaces/current');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'AUTH_ERROR', message: 'missing x-api-key header' },
      });
    });

    it.each([
      ['an unknown svc_ key', `svc_${'A'.repeat(43)}`],
      ['a key without the svc_ prefix', 'not-a-key'],
      ['the admin token', ADMIN_TOKEN],
    ])('answers 401 "invalid or revoked API key" for %s', async (_case, key) => {
      const res = await admin.http.get('/v1/workspaces/current').set('x-api-key', key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'AUTH_ERROR', message: 'invalid or revoked API key' },
      });
    });

    it('does not accept the admin token in place of an API key', async () => {
      const res = await admin.http.get('/v1/workspaces/current').set('x-admin-token', ADMIN_TOKEN);
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('missing x-api-key header');
    });
  });
});
