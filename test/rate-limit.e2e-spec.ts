import { request as httpRequest } from 'node:http';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { redisForTests, type RedisForTests } from './support/fake-redis';
import { freePort } from './support/service-process';
import { waitFor } from './support/wait';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A GET from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...), so that one test process can
 * act as several clients for the per-address limit.
 */
function getFrom(
  t: TestApp,
  localAddress: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { localAddress, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function limitHeaders(res: { headers: Record<string, unknown> }) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
  };
}

const TOO_MANY = {
  success: false,
  error: { code: 'RATE_LIMIT_ERROR', message: 'too many requests' },
};

describe('rate limits', () => {
  /** No limit: used to arrange workspaces and keys on the shared database. */
  let setup: TestApp;
  /** Three requests per workspace (or address) per minute, counters in memory. */
  let limited: TestApp;

  beforeAll(async () => {
    setup = await createTestApp({ RATE_LIMIT_MAX: '0' });
    limited = await createTestApp(
      { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' },
      { databaseUrl: setup.databaseUrl },
    );
  });
  afterAll(async () => {
    await limited?.close();
    await setup?.close();
  });

  const current = (t: TestApp, key: string) =>
    t.http.get('/v1/workspaces/current').set('x-api-key', key);

  it('answers 429 RATE_LIMIT_ERROR "too many requests" with Retry-After and RateLimit headers once a workspace has used its budget', async () => {
    const { key } = await createWorkspaceWithKey(setup.http);
    for (const remaining of ['2', '1', '0']) {
      const res = await current(limited, key);
      expect(res.status).toBe(200);
      const headers = limitHeaders(res);
      expect(headers).toMatchObject({ limit: '3', remaining });
      expect(Number(headers.reset)).toBeGreaterThan(0);
      expect(Number(headers.reset)).toBeLessThanOrEqual(60);
    }

    const refused = await current(limited, key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect(limitHeaders(refused)).toMatchObject({ limit: '3', remaining: '0' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0);
  });

  it('counts every route of a workspace against one budget', async () => {
    const { key } = await createWorkspaceWithKey(setup.http);
    expect((await current(limited, key)).status).toBe(200);
    expect((await limited.http.get('/v1/api-keys').set('x-api-key', key)).status).toBe(200);
    const created = await limited.http
      .post('/v1/api-keys')
      .set('x-api-key', key)
      .send({ name: 'k' });
    expect(created.status).toBe(201);
    expect(limitHeaders(created).remaining).toBe('0');
    const refused = await limited.http.get('/v1/api-keys').set('x-api-key', key);
    expect(refused.status).toBe(429);
  });

  it('counts every key of one workspace against one budget', async () => {
    const { key } = await createWorkspaceWithKey(setup.http);
    const second = await setup.http.post('/v1/api-keys').set('x-api-key', key).send({ name: 'b' });
    const other = second.body.data.key as string;
    expect((await current(limited, key)).status).toBe(200);
    expect((await current(limited, other)).status).toBe(200);
    expect((await current(limited, key)).status).toBe(200);
    expect((await current(limited, other)).status).toBe(429);
  });

  it('leaves another workspace unaffected', async () => {
    const busy = await createWorkspaceWithKey(setup.http);
    const quiet = await createWorkspaceWithKey(setup.http);
    for (let i = 0; i < 3; i++) await current(limited, busy.key);
    expect((await current(limited, busy.key)).status).toBe(429);

    const res = await current(limited, quiet.key);
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: '3', remaining: '2' });
  });

  it('limits requests without a valid key per client address', async () => {
    const { key } = await createWorkspaceWithKey(setup.http);
    // Missing and invalid keys from one address share that address's budget.
    expect((await getFrom(limited, '127.0.0.2', '/v1/workspaces/current')).status).toBe(401);
    const invalid = { 'x-api-key': 'svc_guessing' };
    expect((await getFrom(limited, '127.0.0.2', '/v1/api-keys', invalid)).status).toBe(401);
    const last = await getFrom(limited, '127.0.0.2', '/v1/workspaces/current', invalid);
    expect(last.status).toBe(401);
    expect(limitHeaders(last)).toMatchObject({ limit: '3', remaining: '0' });

    const refused = await getFrom(limited, '127.0.0.2', '/v1/workspaces/current');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect(refused.headers['retry-after']).toBeDefined();

    // Another address has its own budget; a valid key from the limited address counts against its
    // workspace instead.
    expect((await getFrom(limited, '127.0.0.3', '/v1/workspaces/current')).status).toBe(401);
    expect(
      (await getFrom(limited, '127.0.0.2', '/v1/workspaces/current', { 'x-api-key': key })).status,
    ).toBe(200);
  });

  it('limits workspace creation per client address', async () => {
    const create = () =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ name: 'x', slug: '' });
        const req = httpRequest(
          `${limited.baseUrl}/v1/workspaces`,
          {
            method: 'POST',
            localAddress: '127.0.0.4',
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    expect([await create(), await create(), await create(), await create()]).toEqual([
      400, 400, 400, 429,
    ]);
  });

  it('lets the workspace continue once the window has passed', async () => {
    const short = await createTestApp(
      { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '1000' },
      { databaseUrl: setup.databaseUrl },
    );
    try {
      const { key } = await createWorkspaceWithKey(setup.http);
      await current(short, key);
      await current(short, key);
      const refused = await current(short, key);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBe(1);
      await waitFor(
        'the window to pass',
        async () => ((await current(short, key)).status === 200 ? true : undefined),
        { timeoutMs: 5000, intervalMs: 200 },
      );
    } finally {
      await short.close();
    }
  });

  it('is disabled by RATE_LIMIT_MAX=0: no 429 and no rate-limit headers', async () => {
    const { key } = await createWorkspaceWithKey(setup.http);
    for (let i = 0; i < 25; i++) {
      const res = await current(setup, key);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    for (let i = 0; i < 5; i++) {
      expect((await getFrom(setup, '127.0.0.5', '/v1/workspaces/current')).status).toBe(401);
    }
  });

  describe('with REDIS_URL', () => {
    let a: TestApp;
    let b: TestApp;
    let workspace: WorkspaceWithKey;
    let redis: RedisForTests;

    beforeAll(async () => {
      // REDIS_URL, else 127.0.0.1:6379, else (a machine without Redis) a stand-in speaking RESP.
      redis = await redisForTests();
      const env = { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000', REDIS_URL: redis.url };
      a = await createTestApp(env, { databaseUrl: setup.databaseUrl });
      b = await createTestApp(env, { databaseUrl: setup.databaseUrl });
      workspace = await createWorkspaceWithKey(setup.http);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await redis?.close();
    });

    it('two instances on one database share one workspace budget', async () => {
      const seen: Array<[number, unknown]> = [];
      for (const t of [a, b, a, b]) {
        const res = await current(t, workspace.key);
        seen.push([res.status, res.headers['ratelimit-remaining']]);
      }
      expect(seen).toEqual([
        [200, '3'],
        [200, '2'],
        [200, '1'],
        [200, '0'],
      ]);
      for (const t of [a, b]) {
        const refused = await current(t, workspace.key);
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual(TOO_MANY);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
    });

    it('keeps limiting in memory, without failing any request, while Redis is unreachable', async () => {
      const unreachable = await createTestApp(
        { RATE_LIMIT_MAX: '2', REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
        { databaseUrl: setup.databaseUrl },
      );
      try {
        const { key } = await createWorkspaceWithKey(setup.http);
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) statuses.push((await current(unreachable, key)).status);
        expect(statuses).toEqual([200, 200, 429]);
      } finally {
        await unreachable.close();
      }
    });

    it('another workspace keeps its own budget on both instances', async () => {
      const other = await createWorkspaceWithKey(setup.http);
      const res = await current(b, other.key);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe('3');
    });
  });
});
