import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase, onServer } from './support/database';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { waitFor } from './support/wait';

const nameOf = (databaseUrl: string): string => new URL(databaseUrl).pathname.slice(1);

describe('health probes', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A tight rate limit, to show that the probes are never limited.
    t = await createTestApp({ RATE_LIMIT_MAX: '1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /live answers 200 without authentication', async () => {
    const res = await t.http.get('/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('GET /health answers 200 with the database up', async () => {
    const res = await t.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok', database: 'up' } });
  });

  it('GET /ready answers 200 while the database answers', async () => {
    const res = await t.http.get('/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ready', database: 'up' } });
  });

  it('never rate-limits the probes nor sends rate-limit headers for them', async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ['/live', '/health', '/ready']) {
        const res = await t.http.get(path);
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    }
  });

  it('ignores an invalid API key on the probes', async () => {
    const res = await t.http.get('/ready').set('x-api-key', 'svc_not-a-real-key');
    expect(res.status).toBe(200);
  });

  describe('when the database goes away', () => {
    // A service process of its own (the deployment shape): its reconnection attempts after the
    // database has gone stay in that process and end with it.
    let service: ServiceProcess;
    let databaseUrl: string;
    const get = async (path: string) => {
      const res = await fetch(`${service.baseUrl}${path}`);
      return { status: res.status, body: await res.json() };
    };

    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
      service = startService({
        env: { DATABASE_URL: databaseUrl, PORT: String(await freePort()), LOG_LEVEL: 'silent' },
      });
      await waitUntilReady(service, 30_000);
    }, 40_000);
    afterAll(async () => {
      if (!service) return;
      service.child.kill('SIGTERM');
      await service.exited(30_000).catch(() => service.kill());
    });

    it('/ready answers 503 while the database refuses connections and 200 again once it is back', async () => {
      const name = nameOf(databaseUrl);
      expect((await get('/ready')).status).toBe(200);

      await onServer(
        `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
      );
      try {
        await waitFor('/ready to answer 503', async () =>
          (await get('/ready')).status === 503 ? true : undefined,
        );
      } finally {
        await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      }
      const back = await waitFor('/ready to answer 200 again', async () => {
        const res = await get('/ready');
        return res.status === 200 ? res : undefined;
      });
      expect(back.body).toEqual({ success: true, data: { status: 'ready', database: 'up' } });
    });

    it('/ready answers 503 SERVICE_UNAVAILABLE in the envelope once the database is dropped, while /live and /health still answer', async () => {
      expect((await get('/ready')).status).toBe(200);

      // Dropped while the service still holds connections to it: the database goes away under it.
      await onServer(`DROP DATABASE ${nameOf(databaseUrl)} WITH (FORCE)`);

      const ready = await waitFor('/ready to report the database down', async () => {
        const res = await get('/ready');
        return res.status === 503 ? res : undefined;
      });
      expect(ready.body).toEqual({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: 'database unavailable' },
      });
      expect(await get('/live')).toEqual({
        status: 200,
        body: { success: true, data: { status: 'ok' } },
      });
      expect(await get('/health')).toEqual({
        status: 200,
        body: { success: true, data: { status: 'ok', database: 'down' } },
      });
    });
  });
});
