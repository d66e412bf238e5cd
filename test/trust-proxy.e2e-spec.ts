import { fileDatabaseUrl } from './support/database';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { waitFor } from './support/wait';

/**
 * TRUST_PROXY (README "Behind a proxy"): which X-Forwarded-For the service believes for the client
 * address of the per-address rate limit and the access log. Every request here comes from 127.0.0.1 and
 * carries no key, so it counts against its client address's budget of RATE_LIMIT_MAX requests.
 */
const BUDGET = 10;

interface Answer {
  status: number;
  /** RateLimit-Remaining: how much of that address's budget is left. */
  remaining: number;
}

describe('TRUST_PROXY: the client address behind a proxy', () => {
  const services = new Map<string, ServiceProcess>();

  /** One service process per setting, all on this file's database. */
  const SETTINGS = {
    off: '',
    hops: '1',
    loopback: '127.0.0.1',
    elsewhere: '10.0.0.0/8,fd00::/8',
  } as const;
  type Setting = keyof typeof SETTINGS;

  beforeAll(async () => {
    const databaseUrl = await fileDatabaseUrl();
    await Promise.all(
      (Object.keys(SETTINGS) as Setting[]).map(async (setting) => {
        const service = startService({
          env: {
            DATABASE_URL: databaseUrl,
            PORT: String(await freePort()),
            LOG_LEVEL: 'info',
            EXECUTOR_ENABLED: 'false',
            RATE_LIMIT_MAX: String(BUDGET),
            RATE_LIMIT_WINDOW_MS: '600000',
            TRUST_PROXY: SETTINGS[setting],
          },
        });
        services.set(setting, service);
        await waitUntilReady(service, 60_000);
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      [...services.values()].map(async (service) => {
        service.child.kill('SIGTERM');
        await service.exited(30_000).catch(() => service.kill());
      }),
    );
  });

  let requestCount = 0;

  /** An unauthenticated request from loopback (401), with X-Forwarded-For when given. */
  async function call(
    setting: Setting,
    forwardedFor?: string,
  ): Promise<Answer & { requestId: string }> {
    const requestId = `trust-proxy-${setting}-${++requestCount}`;
    const headers: Record<string, string> = { 'x-request-id': requestId };
    if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
    const res = await fetch(`${services.get(setting)!.baseUrl}/v1/workspaces/current`, {
      headers,
    });
    await res.arrayBuffer();
    return {
      status: res.status,
      remaining: Number(res.headers.get('ratelimit-remaining')),
      requestId,
    };
  }

  /** The client address in the access log line of that request. */
  async function loggedAddress(setting: Setting, requestId: string): Promise<unknown> {
    const line = await waitFor(`the access log line of ${requestId}`, () =>
      logLines(services.get(setting)!).find(
        (l) => l.msg === 'request completed' && (l.req as { id?: string }).id === requestId,
      ),
    );
    return (line.req as { remoteAddress?: unknown }).remoteAddress;
  }

  it('off (the default): requests with different X-Forwarded-For from one peer share its budget, and the log shows the peer', async () => {
    const first = await call('off', '203.0.113.7');
    const second = await call('off', '198.51.100.9');
    expect([first.status, second.status]).toEqual([401, 401]);
    expect(second.remaining).toBe(first.remaining - 1);
    expect(await loggedAddress('off', first.requestId)).toBe('127.0.0.1');
    expect(await loggedAddress('off', second.requestId)).toBe('127.0.0.1');
  });

  it('with a hop count of 1: each forwarded client has its own budget, and the log shows the forwarded address', async () => {
    const first = await call('hops', '203.0.113.7');
    const second = await call('hops', '198.51.100.9');
    expect([first.status, second.status]).toEqual([401, 401]);
    expect(first.remaining).toBe(BUDGET - 1);
    expect(second.remaining).toBe(BUDGET - 1);
    // The same forwarded client again counts against its own budget.
    expect((await call('hops', '203.0.113.7')).remaining).toBe(BUDGET - 2);
    expect(await loggedAddress('hops', first.requestId)).toBe('203.0.113.7');
    expect(await loggedAddress('hops', second.requestId)).toBe('198.51.100.9');
  });

  it('with a hop count of 1: an entry the client wrote before the proxy appended its own is not believed', async () => {
    // The client sent "X-Forwarded-For: 192.0.2.50"; the one trusted proxy appended 192.0.2.99.
    const spoofed = await call('hops', '192.0.2.50, 192.0.2.99');
    expect(await loggedAddress('hops', spoofed.requestId)).toBe('192.0.2.99');
    expect((await call('hops', '192.0.2.99')).remaining).toBe(spoofed.remaining - 1);
  });

  it('with 127.0.0.1 trusted: the forwarded address is the client, with its own budget', async () => {
    const first = await call('loopback', '203.0.113.7');
    const second = await call('loopback', '198.51.100.9');
    expect(first.remaining).toBe(BUDGET - 1);
    expect(second.remaining).toBe(BUDGET - 1);
    expect(await loggedAddress('loopback', first.requestId)).toBe('203.0.113.7');
    // No header: the peer itself is the client.
    const direct = await call('loopback');
    expect(await loggedAddress('loopback', direct.requestId)).toBe('127.0.0.1');
  });

  it('with trusted CIDRs that leave out the peer: X-Forwarded-For is ignored', async () => {
    const first = await call('elsewhere', '203.0.113.7');
    const second = await call('elsewhere', '10.1.2.3');
    expect(second.remaining).toBe(first.remaining - 1);
    expect(await loggedAddress('elsewhere', first.requestId)).toBe('127.0.0.1');
    expect(await loggedAddress('elsewhere', second.requestId)).toBe('127.0.0.1');
  });

  it('stops at start-up on a TRUST_PROXY it cannot use, naming the variable', async () => {
    const service = startService({
      env: {
        DATABASE_URL: await fileDatabaseUrl(),
        PORT: String(await freePort()),
        TRUST_PROXY: 'true',
      },
    });
    try {
      expect((await service.exited(30_000)).code).toBe(1);
      expect(service.stderr()).toMatch(/TRUST_PROXY: must be false, a hop count/);
    } finally {
      service.kill();
    }
  });
});
