import { randomUUID } from 'node:crypto';
import { checkedAgent } from './support/openapi-check';
import type TestAgent from 'supertest/lib/agent';
import { createTestDatabase, onServer } from './support/database';
import { createWorkspaceWithKey, uniqueSlug, type WorkspaceWithKey } from './support/factories';
import { startHoldServer, type HoldServer } from './support/hold-server';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
import { waitFor } from './support/wait';
import { createDefinition, startRun, waitForRun } from './support/workflows';

/**
 * Design §9: while the database cannot be reached, every route that needs it answers 503
 * SERVICE_UNAVAILABLE with Retry-After, quickly; /live stays 200 and /ready is 503; once the database is
 * back the service serves again by itself. The service is its own process (the deployment shape, and a
 * crash would show as an exit) whose only way to the database is a loopback TCP proxy, so that the
 * test can make the database refuse connections or fall silent, or close the database itself.
 */

const CONNECT_TIMEOUT_MS = 1000;
/** Generous: a refused connection fails at once, a silent one after CONNECT_TIMEOUT_MS. */
const ANSWER_BOUND_MS = 5 * CONNECT_TIMEOUT_MS;

interface Ids {
  key: string;
  definitionId: string;
  runId: string;
  webhookId: string;
  spareKeyId: string;
  spareWebhookId: string;
  keylessWorkspaceId: string;
}

interface Outage {
  name: string;
  begin(): Promise<void>;
  end(): Promise<void>;
  /** Requests per route while it lasts. */
  attempts: number;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Without a key: the bootstrap and workspace-creation routes. */
  anonymous?: boolean;
  body?: (ids: Ids) => object;
  /** The status once the database is back. */
  after: number;
}

/** Every feature's reads and writes, and the two routes that need no key (design §2). */
const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/workspaces/current', after: 200 },
  {
    method: 'POST',
    path: '/v1/workspaces',
    anonymous: true,
    body: () => ({ name: 'Created after the outage', slug: uniqueSlug('outage') }),
    after: 201,
  },
  {
    method: 'POST',
    path: '/v1/api-keys',
    anonymous: true,
    body: (ids) => ({ name: 'first key', workspaceId: ids.keylessWorkspaceId }),
    after: 201,
  },
  { method: 'POST', path: '/v1/api-keys', body: () => ({ name: 'another key' }), after: 201 },
  { method: 'GET', path: '/v1/api-keys', after: 200 },
  { method: 'DELETE', path: '/v1/api-keys/:spareKeyId', after: 200 },
  {
    method: 'POST',
    path: '/v1/workflow-definitions',
    body: () => ({
      name: `outage-${uniqueSlug()}`,
      version: '1',
      steps: [{ type: 'task', name: 'only', handler: 'noop' }],
    }),
    after: 201,
  },
  { method: 'GET', path: '/v1/workflow-definitions', after: 200 },
  { method: 'GET', path: '/v1/workflow-definitions/:definitionId', after: 200 },
  {
    method: 'POST',
    path: '/v1/workflow-runs',
    body: (ids) => ({ definitionId: ids.definitionId, input: {} }),
    after: 201,
  },
  { method: 'GET', path: '/v1/workflow-runs', after: 200 },
  { method: 'GET', path: '/v1/workflow-runs/:runId', after: 200 },
  { method: 'GET', path: '/v1/workflow-runs/:runId/events', after: 200 },
  { method: 'GET', path: '/v1/workflow-runs/:runId/steps', after: 200 },
  { method: 'POST', path: `/v1/workflow-runs/${randomUUID()}/cancel`, after: 404 },
  { method: 'GET', path: '/v1/workflow-runs/:runId/cost', after: 200 },
  { method: 'GET', path: '/v1/cost/summary', after: 200 },
  { method: 'GET', path: '/v1/approval-requests', after: 200 },
  {
    method: 'POST',
    path: `/v1/approval-requests/${randomUUID()}/decide`,
    body: () => ({ decision: 'approved' }),
    after: 404,
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    body: () => ({ url: 'https://127.0.0.1:9/unused', events: ['workflow.failed'] }),
    after: 201,
  },
  { method: 'GET', path: '/v1/webhooks', after: 200 },
  { method: 'GET', path: '/v1/webhooks/:webhookId/deliveries', after: 200 },
  {
    method: 'POST',
    path: `/v1/webhooks/:webhookId/deliveries/${randomUUID()}/retry`,
    after: 404,
  },
  { method: 'DELETE', path: '/v1/webhooks/:spareWebhookId', after: 200 },
];

const label = (r: RouteCase): string => `${r.method} ${r.path}${r.anonymous ? ' (no key)' : ''}`;

describe('a database outage', () => {
  let proxy: TcpProxy;
  let service: ServiceProcess;
  let http: TestAgent;
  let receiver: HttpsReceiver;
  let hold: HoldServer;
  let owner: WorkspaceWithKey;
  let ids: Ids;
  let databaseName: string;
  /** A run whose first step is in flight through every outage. */
  let runBeforeOutage: string;

  async function call(route: RouteCase) {
    const path = route.path.replace(/:(\w+)/g, (_, name: keyof Ids) => ids[name]);
    const started = Date.now();
    let req = http[route.method.toLowerCase() as 'get' | 'post' | 'delete'](path);
    if (!route.anonymous) req = req.set('x-api-key', ids.key);
    const res = await (route.body ? req.send(route.body(ids)) : req);
    return { res, elapsed: Date.now() - started };
  }

  /** A key to revoke, a webhook to delete and a workspace without a key, for the next outage. */
  async function arrangeTargets(): Promise<void> {
    const spareKey = await http
      .post('/v1/api-keys')
      .set('x-api-key', ids.key)
      .send({ name: 'spare' });
    const spareHook = await http
      .post('/v1/webhooks')
      .set('x-api-key', ids.key)
      .send({ url: 'https://127.0.0.1:9/spare', events: ['workflow.failed'] });
    const keyless = await http
      .post('/v1/workspaces')
      .send({ name: 'No key yet', slug: uniqueSlug('keyless') });
    ids.spareKeyId = spareKey.body.data.id as string;
    ids.spareWebhookId = spareHook.body.data.id as string;
    ids.keylessWorkspaceId = keyless.body.data.id as string;
  }

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    hold = await startHoldServer();
    const databaseUrl = await createTestDatabase();
    databaseName = new URL(databaseUrl).pathname.slice(1);
    const server = new URL(process.env.WF_TEST_SERVER_URL!);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    service = startService({
      env: {
        PORT: String(await freePort()),
        DATABASE_URL: proxy.through(databaseUrl),
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Limited, so that the rate-limit guard looks the key up before the API-key guard does.
        RATE_LIMIT_MAX: '100000',
        EXECUTOR_CONCURRENCY: '4',
        EXECUTOR_POLL_INTERVAL_MS: '200',
        STEP_LEASE_MS: '2000',
        WEBHOOK_RETRY_DELAYS_MS: '0,500,1000',
        LOG_LEVEL: 'warn',
      },
    });
    await waitUntilReady(service, 30_000);
    http = checkedAgent(service.baseUrl);

    owner = await createWorkspaceWithKey(http);
    const key = owner.key;
    const hookUrl = receiver.route('/completed');
    const hook = await http
      .post('/v1/webhooks')
      .set('x-api-key', key)
      .send({ url: hookUrl, events: ['workflow.completed'] });
    receiver.setSecret('/completed', hook.body.data.secret as string);
    const definitionId = await createDefinition(http, key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    const runId = await startRun(http, key, definitionId);
    await waitForRun(http, key, runId, 'COMPLETED');
    ids = {
      key,
      definitionId,
      runId,
      webhookId: hook.body.data.id as string,
      spareKeyId: '',
      spareWebhookId: '',
      keylessWorkspaceId: '',
    };

    const slowDefinition = await createDefinition(http, key, [
      // Held through every outage below: longer than the http handler's default 30 s timeout on a
      // busy machine, so it gets one that outlasts them.
      {
        type: 'task',
        name: 'slow',
        handler: 'http',
        config: { url: `${hold.url}/hold/outage`, timeoutMs: 300_000 },
      },
      { type: 'task', name: 'after', handler: 'noop' },
    ]);
    runBeforeOutage = await startRun(http, key, slowDefinition);
    await waitFor('the slow step to be in flight', () =>
      hold.hits('/hold/outage').length > 0 ? true : undefined,
    );
  }, 60_000);

  afterAll(async () => {
    service?.kill();
    await proxy?.close();
    await hold?.close();
    await receiver?.close();
  });

  it('documents 503 SERVICE_UNAVAILABLE with Retry-After on every route of the table', async () => {
    const doc = (await http.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    const operationOf = (route: RouteCase) => {
      const concrete = route.path.replace(/:\w+/g, 'x');
      const template = Object.keys(doc.paths).find((p) =>
        new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concrete),
      );
      return template ? doc.paths[template][route.method.toLowerCase()] : undefined;
    };
    for (const route of ROUTES) {
      expect({
        route: label(route),
        headers: operationOf(route)?.responses['503']?.headers,
      }).toEqual({
        route: label(route),
        headers: { 'Retry-After': expect.any(Object) },
      });
    }
  });

  const UNAVAILABLE = {
    success: false,
    error: { code: 'SERVICE_UNAVAILABLE', message: 'database unavailable' },
  };

  /** Three ways the database goes away, each ended again within the test. */
  const OUTAGES: Outage[] = [
    {
      name: 'the database host refuses connections',
      begin: () => proxy.cut('refuse'),
      end: () => proxy.restore(),
      attempts: 2,
    },
    {
      name: 'the network drops every packet',
      begin: () => proxy.cut('silence'),
      end: () => proxy.restore(),
      // Each request waits for the connect timeout: once per route is enough.
      attempts: 1,
    },
    {
      name: 'the database refuses new sessions and ends the open ones',
      begin: () =>
        onServer(
          `ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '${databaseName}' AND pid <> pg_backend_pid()`,
        ),
      end: () => onServer(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`),
      attempts: 2,
    },
  ];

  describe.each(OUTAGES.map((o) => [o.name, o] as const))('when %s', (_name, outage) => {
    describe('while the database cannot be reached', () => {
      beforeAll(async () => {
        // Fresh targets for the routes that change something (revoke, delete, first key).
        await arrangeTargets();
        await outage.begin();
      }, 30_000);

      it('keeps /live at 200 and answers /ready 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
        const live = await http.get('/live');
        expect({ status: live.status, body: live.body as unknown }).toEqual({
          status: 200,
          body: { success: true, data: { status: 'ok' } },
        });
        const ready = await http.get('/ready');
        expect({ status: ready.status, body: ready.body as unknown }).toEqual({
          status: 503,
          body: UNAVAILABLE,
        });
        expect(ready.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      });

      it.each(ROUTES.map((r) => [label(r), r] as const))(
        '%s answers 503 SERVICE_UNAVAILABLE with Retry-After, within the bound',
        async (_label, route) => {
          // Twice where it is cheap: the first request may meet a connection the outage has just
          // broken, the second needs a new one.
          for (let attempt = 0; attempt < outage.attempts; attempt++) {
            const { res, elapsed } = await call(route);
            expect({ status: res.status, body: res.body as unknown }).toEqual({
              status: 503,
              body: UNAVAILABLE,
            });
            expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
            expect(elapsed).toBeLessThan(ANSWER_BOUND_MS);
          }
        },
      );
    });

    describe('once the database is back', () => {
      beforeAll(async () => {
        await outage.end();
        await waitFor('/ready to answer 200 again', async () =>
          (await http.get('/ready')).status === 200 ? true : undefined,
        );
      }, 30_000);

      it.each(ROUTES.map((r) => [label(r), r] as const))(
        '%s answers normally again, without a restart',
        async (_label, route) => {
          const { res } = await call(route);
          expect({
            status: res.status,
            success: (res.body as { success: boolean }).success,
          }).toEqual({ status: route.after, success: route.after < 400 });
        },
      );
    });
  });

  describe('a run in flight when the database goes away', () => {
    it('survives its step finishing while the outcome cannot be recorded', async () => {
      await proxy.cut('refuse');
      try {
        // A step run again after the outage (its outcome was lost) is answered at once.
        hold.answerImmediately();
        hold.release();
        await waitFor('the held request to be answered', () =>
          hold.hits('/hold/outage')[0].answered ? true : undefined,
        );
        expect((await http.get('/ready')).status).toBe(503);
        expect(service.child.exitCode).toBeNull();
      } finally {
        await proxy.restore();
      }
    });

    it('completes once the database is back and its webhook is delivered, in the same process', async () => {
      const run = await waitForRun(http, ids.key, runBeforeOutage, 'COMPLETED', 30_000);
      expect(run.status).toBe('COMPLETED');
      const delivery = await waitFor(
        'the workflow.completed delivery of the run',
        () =>
          receiver
            .received('/completed')
            .find(
              (d) =>
                (JSON.parse(d.body) as { workflowRunId?: string }).workflowRunId ===
                runBeforeOutage,
            ),
        { timeoutMs: 20_000 },
      );
      expect(delivery.hmacValid).toBe(true);
      expect(service.child.exitCode).toBeNull();
      expect(service.stderr()).not.toMatch(/uncaught|unhandled/i);
    }, 40_000);
  });
});
