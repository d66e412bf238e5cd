import type { Server } from 'node:http';
import { connect } from 'node:net';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase, onServer, runSql } from './support/database';
import { createWorkspaceWithKey, uniqueSlug } from './support/factories';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { waitFor } from './support/wait';
import { UUID } from './support/formats';

const ADMIN_TOKEN = 'envelope-admin-token';
const MiB = 1024 * 1024;

describe('the HTTP envelope', () => {
  let t: TestApp;
  let admin: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createTestApp({ ADMIN_TOKEN });
  });
  afterAll(async () => {
    await admin?.close();
    await t?.close();
  });

  async function workspaceCount(): Promise<number> {
    const [row] = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM workspaces');
    return row.n;
  }

  /**
   * Runs `use` against the built service as its own process on `databaseUrl` (API only, logging at
   * info), then stops it.
   */
  async function withServiceProcess(
    databaseUrl: string,
    use: (service: ServiceProcess) => Promise<void>,
  ): Promise<void> {
    const service = startService({
      env: {
        DATABASE_URL: databaseUrl,
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        EXECUTOR_ENABLED: 'false',
        RATE_LIMIT_MAX: '0',
      },
    });
    try {
      await waitUntilReady(service, 30_000);
      await use(service);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited(30_000).catch(() => service.kill());
    }
  }

  /** The access log lines of the request with this id. */
  function accessLines(service: ServiceProcess, requestId: string): Array<Record<string, unknown>> {
    return logLines(service).filter(
      (line) => (line.req as { id?: string } | undefined)?.id === requestId,
    );
  }

  describe('unknown routes', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/v1/workspaces/current/extra'],
      ['POST', '/v1/nothing-here'],
      ['PATCH', '/v1/workspaces'],
      ['DELETE', '/v1/workspaces/current'],
    ])('answers %s %s with 404 NOT_FOUND in the envelope', async (method, path) => {
      const res = await t.http[method.toLowerCase() as 'get'](path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
    });

    it('answers an unknown route 404 whether or not a key is sent', async () => {
      const { key } = await createWorkspaceWithKey(t.http);
      const res = await t.http.get('/v1/unknown').set('x-api-key', key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('request bodies', () => {
    it('answers malformed JSON with 400 VALIDATION_ERROR, and writes nothing', async () => {
      const before = await workspaceCount();
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send('{"name": "Acme", "slug": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'malformed JSON body',
          details: { errors: [{ field: 'body', message: expect.any(String) }] },
        },
      });
      expect(await workspaceCount()).toBe(before);
    });

    it.each([
      ['an array', '[{"name": "Acme", "slug": "acme"}]'],
      ['a string', '"acme"'],
      ['a number', '42'],
      ['null', 'null'],
    ])('answers a JSON body that is %s with 400 VALIDATION_ERROR', async (_case, body) => {
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'request body must be a JSON object',
        details: { errors: [{ field: 'body', message: 'must be a JSON object' }] },
      });
    });

    const NUL = 'must not contain the NUL character (\\u0000)';
    const SURROGATE = 'must be well-formed Unicode (unpaired surrogate escape)';
    it.each([
      ['the NUL character in a value', '{"name": "Ac\\u0000me", "slug": "SLUG"}', 'name', NUL],
      [
        'the NUL character in a nested value',
        '{"name": "Acme", "slug": "SLUG", "tags": [{"a": "x\\u0000"}]}',
        'tags[0].a',
        NUL,
      ],
      [
        'the NUL character in a key',
        '{"name": "Acme", "slug": "SLUG", "n\\u0000": 1}',
        'n\u0000',
        NUL,
      ],
      ['a lone high surrogate', '{"name": "Ac\\ud800me", "slug": "SLUG"}', 'name', SURROGATE],
      [
        'a lone low surrogate in a key',
        '{"name": "Acme", "slug": "SLUG", "k\\udc00": 1}',
        'k\udc00',
        SURROGATE,
      ],
    ])(
      'answers a body with %s with 400 VALIDATION_ERROR naming it, and writes nothing',
      async (_case, body, field, message) => {
        const before = await workspaceCount();
        const res = await t.http
          .post('/v1/workspaces')
          .set('content-type', 'application/json')
          .send(body.replace('SLUG', uniqueSlug()));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'VALIDATION_ERROR',
            message: `${field}: ${message}`,
            details: { errors: [{ field, message }] },
          },
        });
        expect(await workspaceCount()).toBe(before);
      },
    );

    it('answers a body nested deeper than 64 levels with 400 VALIDATION_ERROR naming where, and writes nothing', async () => {
      const before = await workspaceCount();
      const depth = 5000;
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send(
          `{"name": "Acme", "slug": "${uniqueSlug()}", "x": ${'['.repeat(depth)}${']'.repeat(depth)}}`,
        );
      expect(res.status).toBe(400);
      const field = `x${'[0]'.repeat(63)}`;
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: `${field}: must not be nested deeper than 64 levels`,
        details: { errors: [{ field, message: 'must not be nested deeper than 64 levels' }] },
      });
      expect(await workspaceCount()).toBe(before);
    });

    it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE, and writes nothing', async () => {
      const before = await workspaceCount();
      const body = JSON.stringify({ name: 'x'.repeat(MiB), slug: uniqueSlug() });
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send(body);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds 1 MiB' },
      });
      expect(await workspaceCount()).toBe(before);
    });

    it('parses a body of just under 1 MiB (and then validates it)', async () => {
      const padding = MiB - 100;
      const body = JSON.stringify({ name: 'x'.repeat(padding), slug: uniqueSlug() });
      expect(Buffer.byteLength(body)).toBeLessThan(MiB);
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'name', message: expect.any(String) },
      ]);
    });

    it.each([
      ['text/plain', '{"name": "Acme", "slug": "text-plain"}'],
      ['application/x-www-form-urlencoded', 'name=Acme&slug=form-encoded'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nAcme\r\n--x--',
      ],
      ['application/xml', '<workspace name="Acme" slug="xml"/>'],
      ['application/jsonp', '{"name": "Acme", "slug": "jsonp"}'],
    ])(
      'answers a body sent as %s with 415 UNSUPPORTED_MEDIA_TYPE and never parses it, writing nothing',
      async (type, body) => {
        const before = await workspaceCount();
        const res = await t.http.post('/v1/workspaces').set('content-type', type).send(body);
        expect(res.status).toBe(415);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) },
        });
        expect(await workspaceCount()).toBe(before);
      },
    );

    it('answers a body without any Content-Type with 415', async () => {
      const res = await fetch(`${t.baseUrl}/v1/workspaces`, {
        method: 'POST',
        body: new Uint8Array(Buffer.from('{"name":"Acme","slug":"no-type"}')),
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('accepts application/json with a charset parameter', async () => {
      const res = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ name: 'Charset', slug: uniqueSlug() }));
      expect(res.status).toBe(201);
    });

    it('accepts a request without a body on routes that take none', async () => {
      const { key } = await createWorkspaceWithKey(t.http);
      const res = await t.http.get('/v1/workspaces/current').set('x-api-key', key);
      expect(res.status).toBe(200);
    });
  });

  describe('conditional requests', () => {
    it('answers without an ETag, so a GET with If-None-Match gets the whole answer (200), never a 304', async () => {
      const { key } = await createWorkspaceWithKey(t.http);
      for (const path of ['/v1/workflow-runs', '/v1/workflow-definitions', '/live']) {
        const first = await t.http.get(path).set('x-api-key', key);
        expect(first.status).toBe(200);
        expect(first.headers.etag).toBeUndefined();
        for (const [header, value] of [
          ['if-none-match', '*'],
          ['if-modified-since', new Date(Date.now() + 3_600_000).toUTCString()],
        ]) {
          const again = await t.http.get(path).set('x-api-key', key).set(header, value);
          expect(again.status).toBe(200);
          expect(again.body).toEqual(first.body);
        }
      }
    });
  });

  describe('request objects', () => {
    it("creates each request and response with the Express app's prototypes, so Express never has to change them", async () => {
      const express = t.app.getHttpAdapter().getInstance() as { request: object; response: object };
      const server = t.app.getHttpServer() as Server;
      const seen: boolean[] = [];
      const probe = (req: object, res: object): void => {
        seen.push(
          Object.getPrototypeOf(req) === express.request,
          Object.getPrototypeOf(res) === express.response,
        );
      };
      // Runs before Express's own listener sees the request.
      server.prependListener('request', probe);
      try {
        const { key } = await createWorkspaceWithKey(t.http);
        const res = await t.http.get('/v1/workspaces/current').set('x-api-key', key);
        expect(res.status).toBe(200);
        expect((await t.http.get('/live')).status).toBe(200);
      } finally {
        server.removeListener('request', probe);
      }
      expect(seen.length).toBeGreaterThanOrEqual(6);
      expect(seen.every(Boolean)).toBe(true);
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a well-formed X-Request-Id', async () => {
      const res = await t.http.get('/live').set('x-request-id', 'client-req-42');
      expect(res.headers['x-request-id']).toBe('client-req-42');
    });

    it('generates an X-Request-Id when none is sent, on success and on error answers', async () => {
      const ok = await t.http.get('/live');
      const notFound = await t.http.get('/nope');
      const unauthorized = await t.http.get('/v1/api-keys');
      const tooLarge = await t.http
        .post('/v1/workspaces')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ name: 'x'.repeat(MiB + 1) }));
      const ids = [ok, notFound, unauthorized, tooLarge].map((r) => r.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it.each([
      ['empty', ''],
      ['too long', 'r'.repeat(129)],
      ['with spaces', 'two words'],
      ['not ASCII', Buffer.from('requête-ü', 'utf8').toString('latin1')],
    ])('replaces an X-Request-Id that is %s with a generated one', async (_case, value) => {
      const res = await t.http.get('/live').set('x-request-id', value);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });
  });

  describe('header values', () => {
    const huge = `svc_${'a'.repeat(8000)}`;
    // Header values travel as bytes; these strings make Node send the UTF-8 (or Latin-1) bytes as-is.
    const utf8 = Buffer.from('svc_ключ', 'utf8').toString('latin1');
    const latin1 = 'svc_clé';

    it('treats an empty x-api-key as missing', async () => {
      const res = await t.http.get('/v1/workspaces/current').set('x-api-key', '');
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({ code: 'AUTH_ERROR', message: 'missing x-api-key header' });
    });

    it.each([
      ['huge', huge],
      ['UTF-8 encoded non-ASCII', utf8],
      ['Latin-1 encoded non-ASCII', latin1],
      ['with inner spaces', 'svc_a b'],
    ])('treats a %s x-api-key as invalid, never as a 500', async (_case, value) => {
      const res = await t.http.get('/v1/workspaces/current').set('x-api-key', value);
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        code: 'AUTH_ERROR',
        message: 'invalid or revoked API key',
      });
    });

    it('treats two x-api-key headers as invalid, even when both are the same valid key', async () => {
      const { key } = await createWorkspaceWithKey(t.http);
      const res = await fetch(`${t.baseUrl}/v1/workspaces/current`, {
        headers: [
          ['x-api-key', key],
          ['x-api-key', key],
        ],
      });
      expect(res.status).toBe(401);
    });

    it('treats an empty x-admin-token as missing', async () => {
      const res = await admin.http
        .post('/v1/workspaces')
        .set('x-admin-token', '')
        .send({ name: 'X', slug: uniqueSlug() });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('missing x-admin-token header');
    });

    it.each([
      ['huge', ADMIN_TOKEN.repeat(500)],
      ['UTF-8 encoded non-ASCII', Buffer.from(`${ADMIN_TOKEN}ü`, 'utf8').toString('latin1')],
      ['Latin-1 encoded non-ASCII', `${ADMIN_TOKEN}é`],
    ])(
      'treats a %s x-admin-token as invalid, never as a 500, and writes nothing',
      async (_case, value) => {
        const before = await workspaceCount();
        const res = await admin.http
          .post('/v1/workspaces')
          .set('x-admin-token', value)
          .send({ name: 'X', slug: uniqueSlug() });
        expect(res.status).toBe(401);
        expect(res.body.error).toEqual({ code: 'AUTH_ERROR', message: 'invalid admin token' });
        expect(await workspaceCount()).toBe(before);
      },
    );

    it('treats odd x-admin-token values on key creation as invalid, never as a 500', async () => {
      for (const value of [ADMIN_TOKEN.repeat(500), `${ADMIN_TOKEN}é`]) {
        const res = await admin.http
          .post('/v1/api-keys')
          .set('x-admin-token', value)
          .send({ name: 'k', workspaceId: '00000000-0000-4000-8000-000000000000' });
        expect(res.status).toBe(401);
      }
    });

    it('answers headers larger than the server accepts with 431 in the envelope, not a 500', async () => {
      const res = await fetch(`${t.baseUrl}/v1/workspaces/current`, {
        headers: { 'x-api-key': `svc_${'a'.repeat(20_000)}` },
      });
      expect(res.status).toBe(431);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: 'HEADERS_TOO_LARGE', message: 'request headers are too large' },
      });
    });

    it('answers a request that is not HTTP with 400 in the envelope', async () => {
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.write('HELLO THERE\r\n\r\n');
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: 'malformed HTTP request' },
      });
    });
  });

  describe('documentation', () => {
    it('serves the OpenAPI document at /openapi.json without authentication', async () => {
      const res = await t.http.get('/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\./);
      expect(Object.keys(res.body.paths)).toEqual(
        expect.arrayContaining(['/v1/workspaces', '/v1/workspaces/current', '/v1/api-keys']),
      );
    });

    it('serves the API docs at /docs', async () => {
      const res = await t.http.get('/docs').redirects(1);
      expect(res.status).toBe(200);
      expect(res.text).toContain('swagger');
    });
  });

  describe('access log', () => {
    it('writes one JSON line per request with its id, method, URL, status and time, 4xx at warn, and never the key', async () => {
      await withServiceProcess(await createTestDatabase(), async (service) => {
        await fetch(`${service.baseUrl}/live?probe=1`, {
          headers: { 'x-request-id': 'req-log-ok' },
        });
        await fetch(`${service.baseUrl}/v1/workspaces/current`, {
          headers: { 'x-request-id': 'req-log-denied', 'x-api-key': 'svc_not-a-real-key' },
        });
        const lineOf = (id: string) =>
          waitFor(`the access log line of ${id}`, () => accessLines(service, id)[0]);

        expect(await lineOf('req-log-ok')).toEqual(
          expect.objectContaining({
            level: 30,
            msg: 'request completed',
            req: {
              id: 'req-log-ok',
              method: 'GET',
              url: '/live?probe=1',
              remoteAddress: '127.0.0.1',
            },
            res: { statusCode: 200 },
            responseTime: expect.any(Number),
          }),
        );
        expect(await lineOf('req-log-denied')).toEqual(
          expect.objectContaining({
            level: 40,
            msg: 'request completed',
            req: {
              id: 'req-log-denied',
              method: 'GET',
              url: '/v1/workspaces/current',
              remoteAddress: '127.0.0.1',
            },
            res: { statusCode: 401 },
          }),
        );
        expect(accessLines(service, 'req-log-ok')).toHaveLength(1);
        expect(service.stdout()).not.toContain('svc_not-a-real-key');
      });
    }, 60_000);
  });

  describe('unexpected errors', () => {
    /**
     * A workspace and key on a fresh database served by its own process, then `breakIt`, then one
     * authenticated request with a known request id, whose answer must leak nothing.
     */
    async function afterBreaking(
      breakIt: (databaseUrl: string, database: string) => Promise<void>,
      check: (service: ServiceProcess, res: Response, text: string) => Promise<void>,
      requestId: string,
    ): Promise<void> {
      const databaseUrl = await createTestDatabase();
      const database = new URL(databaseUrl).pathname.slice(1);
      await withServiceProcess(databaseUrl, async (service) => {
        const post = (path: string, body: unknown) =>
          fetch(`${service.baseUrl}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const ws = (await (
          await post('/v1/workspaces', { name: 'Doomed', slug: 'doomed' })
        ).json()) as {
          data: { id: string };
        };
        const key = (await (
          await post('/v1/api-keys', { name: 'k', workspaceId: ws.data.id })
        ).json()) as {
          data: { key: string };
        };

        await breakIt(databaseUrl, database);

        const res = await fetch(`${service.baseUrl}/v1/workspaces/current`, {
          headers: { 'x-api-key': key.data.key, 'x-request-id': requestId },
        });
        const text = await res.text();
        expect(res.headers.get('x-request-id')).toBe(requestId);
        for (const leak of ['SELECT', 'api_keys', database, 'stack', 'node_modules', '.js:']) {
          expect(text).not.toContain(leak);
        }
        await check(service, res, text);
      });
    }

    it('answers 500 INTERNAL_ERROR without stack or SQL when a statement fails, and logs the error with the request id', async () => {
      await afterBreaking(
        (databaseUrl) => runSql(databaseUrl, 'DROP TABLE api_keys CASCADE'),
        async (service, res, text) => {
          expect(res.status).toBe(500);
          expect(JSON.parse(text)).toEqual({
            success: false,
            error: { code: 'INTERNAL_ERROR', message: 'internal server error' },
          });
          const logged = await waitFor('the error to be logged with its request id', () =>
            logLines(service).find(
              (line) => line.requestId === 'req-db-broken-1' && line.level === 50 && line.err,
            ),
          );
          expect((logged.err as { stack?: string }).stack).toEqual(expect.any(String));
          const access = await waitFor(
            'the access log line at error',
            () => accessLines(service, 'req-db-broken-1')[0],
          );
          expect(access).toEqual(
            expect.objectContaining({
              level: 50,
              res: { statusCode: 500 },
              msg: 'request completed',
            }),
          );
        },
        'req-db-broken-1',
      );
    }, 60_000);

    it('answers 503 SERVICE_UNAVAILABLE with Retry-After, without stack or SQL, when the database is dropped under the service', async () => {
      await afterBreaking(
        (_, database) => onServer(`DROP DATABASE ${database} WITH (FORCE)`),
        async (service, res, text) => {
          expect(res.status).toBe(503);
          expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
          expect(JSON.parse(text)).toEqual({
            success: false,
            error: { code: 'SERVICE_UNAVAILABLE', message: 'database unavailable' },
          });
          const logged = await waitFor('the outage to be logged with the request id', () =>
            logLines(service).find(
              (line) => line.requestId === 'req-db-gone-1' && line.msg === 'database unavailable',
            ),
          );
          expect(logged.level).toBe(40);
        },
        'req-db-gone-1',
      );
    }, 60_000);
  });
});
