import type TestAgent from 'supertest/lib/agent';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import { freePort } from './support/service-process';
import { createDefinition, eventually, startRun, waitForRun } from './support/workflows';

/**
 * The webhook API (registration, listing, deletion, validation, the delivery log and its retry) and the
 * delivery refusals that need no trusted receiver: SSRF protection and certificate verification. The
 * services here run inside Jest, whose trust store does not hold the test certificate; deliveries that
 * must succeed are in webhook-delivery.e2e-spec.ts, against processes started with NODE_EXTRA_CA_CERTS.
 */

interface DeliveryView {
  id: string;
  webhookId: string;
  messageId: string;
  event: string;
  workflowRunId: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const ALL_EVENTS = [
  'workflow.completed',
  'workflow.failed',
  'workflow.cancelled',
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'approval.escalated',
];

async function createWebhook(
  http: TestAgent,
  key: string,
  url: string,
  events: string[] = ['workflow.completed'],
): Promise<{ id: string; secret: string }> {
  const res = await http.post('/v1/webhooks').set('x-api-key', key).send({ url, events });
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; secret: string };
}

async function deliveries(
  http: TestAgent,
  key: string,
  webhookId: string,
): Promise<DeliveryView[]> {
  const res = await http.get(`/v1/webhooks/${webhookId}/deliveries`).set('x-api-key', key);
  if (res.status !== 200) throw new Error(`deliveries read failed: ${res.status} ${res.text}`);
  return res.body.data as DeliveryView[];
}

/** Runs a one-step noop workflow to completion, which queues a workflow.completed delivery. */
async function completeRun(http: TestAgent, key: string): Promise<string> {
  const def = await createDefinition(http, key, [{ type: 'task', name: 'a', handler: 'noop' }]);
  const runId = await startRun(http, key, def);
  await waitForRun(http, key, runId, 'COMPLETED');
  return runId;
}

describe('webhooks API', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_RETRY_DELAYS_MS: '0,50,50', EXECUTOR_CONCURRENCY: '4' });
    ws = await createWorkspaceWithKey(t.http);
  });

  afterAll(async () => {
    await t.close();
  });

  it('creates a webhook and returns a whsec_ secret of 32 random bytes only in the creation answer', async () => {
    const url = 'https://hooks.example.com/workflows?team=7';
    const res = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ url, events: ['workflow.completed', 'approval.requested'] });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        workspaceId: ws.workspace.id,
        url,
        events: ['workflow.completed', 'approval.requested'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        isActive: true,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    const secret = res.body.data.secret as string;
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const list = await t.http.get('/v1/webhooks').set('x-api-key', ws.key);
    expect(list.status).toBe(200);
    const listed = (list.body.data as Array<Record<string, unknown>>).find(
      (w) => w.id === res.body.data.id,
    );
    expect(listed).toEqual({
      id: res.body.data.id,
      workspaceId: ws.workspace.id,
      url,
      events: ['workflow.completed', 'approval.requested'],
      isActive: true,
      createdAt: res.body.data.createdAt,
    });
    expect(list.text).not.toContain(secret);
  });

  it('lists only the caller workspace webhooks, newest first', async () => {
    const own = await createWorkspaceWithKey(t.http);
    const other = await createWorkspaceWithKey(t.http);
    const first = await createWebhook(t.http, own.key, 'https://a.example.com/1');
    const second = await createWebhook(t.http, own.key, 'https://a.example.com/2', ALL_EVENTS);
    await createWebhook(t.http, other.key, 'https://b.example.com/');

    const res = await t.http.get('/v1/webhooks').set('x-api-key', own.key);
    expect(res.status).toBe(200);
    expect((res.body.data as Array<{ id: string }>).map((w) => w.id)).toEqual([
      second.id,
      first.id,
    ]);
    expect(res.body).not.toHaveProperty('meta');
  });

  it('deletes a webhook: 200 {id, deleted: true}, then it is gone from the list and answers 404', async () => {
    const hook = await createWebhook(t.http, ws.key, 'https://c.example.com/');
    const res = await t.http.delete(`/v1/webhooks/${hook.id}`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: hook.id, deleted: true } });

    const list = await t.http.get('/v1/webhooks').set('x-api-key', ws.key);
    expect((list.body.data as Array<{ id: string }>).map((w) => w.id)).not.toContain(hook.id);
    const again = await t.http.delete(`/v1/webhooks/${hook.id}`).set('x-api-key', ws.key);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
    const log = await t.http.get(`/v1/webhooks/${hook.id}/deliveries`).set('x-api-key', ws.key);
    expect(log.status).toBe(404);
  });

  it("answers 404 for another workspace's webhook and for malformed ids, on every route", async () => {
    const other = await createWorkspaceWithKey(t.http);
    const foreign = await createWebhook(t.http, other.key, 'https://d.example.com/');
    const delivery = '00000000-0000-4000-8000-000000000000';
    for (const id of [foreign.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000001']) {
      const del = await t.http.delete(`/v1/webhooks/${id}`).set('x-api-key', ws.key);
      const log = await t.http.get(`/v1/webhooks/${id}/deliveries`).set('x-api-key', ws.key);
      const retry = await t.http
        .post(`/v1/webhooks/${id}/deliveries/${delivery}/retry`)
        .set('x-api-key', ws.key);
      expect([del.status, log.status, retry.status]).toEqual([404, 404, 404]);
      expect(del.body.error.code).toBe('NOT_FOUND');
    }
    // Still there for its owner.
    const list = await t.http.get('/v1/webhooks').set('x-api-key', other.key);
    expect((list.body.data as Array<{ id: string }>).map((w) => w.id)).toContain(foreign.id);
  });

  it('requires an API key on every webhook route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const res of [
      await t.http.post('/v1/webhooks').send({ url: 'https://e.example.com/', events: ALL_EVENTS }),
      await t.http.get('/v1/webhooks'),
      await t.http.delete(`/v1/webhooks/${id}`),
      await t.http.get(`/v1/webhooks/${id}/deliveries`),
      await t.http.post(`/v1/webhooks/${id}/deliveries/${id}/retry`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH_ERROR');
    }
  });

  const valid = { url: 'https://f.example.com/hook', events: ['workflow.completed'] };
  it.each<[string, Record<string, unknown>, string]>([
    ['an http:// URL', { ...valid, url: 'http://f.example.com/hook' }, 'url'],
    ['a relative URL', { ...valid, url: '/hooks/workflows' }, 'url'],
    ['a malformed URL', { ...valid, url: 'https://' }, 'url'],
    ['a URL with spaces', { ...valid, url: 'https://exa mple.com/' }, 'url'],
    ['a URL with credentials', { ...valid, url: 'https://user:pw@f.example.com/' }, 'url'],
    ['a URL with a user name', { ...valid, url: 'https://token@f.example.com/' }, 'url'],
    ['a missing URL', { events: valid.events }, 'url'],
    ['a non-string URL', { ...valid, url: 42 }, 'url'],
    ['missing events', { url: valid.url }, 'events'],
    ['an empty events array', { ...valid, events: [] }, 'events'],
    ['events that are not an array', { ...valid, events: 'workflow.completed' }, 'events'],
    ['a non-string event', { ...valid, events: [42] }, 'events'],
    ['an unknown event type', { ...valid, events: ['workflow.started'] }, 'events'],
    [
      'a duplicated event type',
      { ...valid, events: ['workflow.failed', 'workflow.failed'] },
      'events',
    ],
    ['an unknown field', { ...valid, secret: 'whsec_mine' }, 'secret'],
  ])('answers 400 naming the field for %s', async (_what, body, field) => {
    const res = await t.http.post('/v1/webhooks').set('x-api-key', ws.key).send(body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field })]),
    );
  });

  it('names the offending URL problem and the known event types in the messages', async () => {
    const http = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ ...valid, url: 'http://f.example.com/' });
    expect(http.body.error.details.errors).toEqual([
      { field: 'url', message: 'url must use https' },
    ]);
    const unknown = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ ...valid, events: ['workflow.completed', 'run.done'] });
    expect(unknown.body.error.details.errors).toEqual([
      { field: 'events', message: `each value in events must be one of ${ALL_EVENTS.join(', ')}` },
    ]);
  });

  it('refuses a 21st webhook in a workspace with 400 naming url, and accepts one again after a delete', async () => {
    const full = await createWorkspaceWithKey(t.http);
    const made: string[] = [];
    for (let i = 0; i < 20; i++) {
      made.push((await createWebhook(t.http, full.key, `https://g.example.com/${i}`)).id);
    }
    const res = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', full.key)
      .send({ url: 'https://g.example.com/20', events: ['workflow.failed'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([
      { field: 'url', message: 'a workspace can have at most 20 webhooks; delete one first' },
    ]);

    await t.http.delete(`/v1/webhooks/${made[0]}`).set('x-api-key', full.key).expect(200);
    await createWebhook(t.http, full.key, 'https://g.example.com/20');
  });

  it('holds the limit of 20 under concurrent creations', async () => {
    const racing = await createWorkspaceWithKey(t.http);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.http
          .post('/v1/webhooks')
          .set('x-api-key', racing.key)
          .send({ url: `https://h.example.com/${i}`, events: ['workflow.completed'] }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(10);
  });

  it('answers 400 for an invalid deliveries query', async () => {
    const hook = await createWebhook(t.http, ws.key, 'https://i.example.com/');
    for (const query of ['page=0', 'pageSize=101', 'pageSize=x', 'status=sent']) {
      const res = await t.http
        .get(`/v1/webhooks/${hook.id}/deliveries?${query}`)
        .set('x-api-key', ws.key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('webhook deliveries refused by the sender', () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  describe('with HTTPS certificates verified (the test certificate is not trusted here)', () => {
    let t: TestApp;
    let ws: WorkspaceWithKey;

    beforeAll(async () => {
      t = await createTestApp(
        { WEBHOOK_RETRY_DELAYS_MS: '0,50,50', EXECUTOR_CONCURRENCY: '4' },
        { databaseUrl: await createTestDatabase() },
      );
      ws = await createWorkspaceWithKey(t.http);
    });

    afterAll(async () => {
      await t.close();
    });

    it('fails every attempt against an untrusted certificate; the receiver never gets a request', async () => {
      const url = receiver.route('/untrusted');
      const hook = await createWebhook(t.http, ws.key, url);
      const runId = await completeRun(t.http, ws.key);

      const [failed] = await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list.length === 1 && list[0].status === 'failed' ? list : undefined;
        },
        15_000,
        'the delivery to fail',
      );
      expect(failed).toEqual({
        id: expect.any(String),
        webhookId: hook.id,
        messageId: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        event: 'workflow.completed',
        workflowRunId: runId,
        status: 'failed',
        attempts: 3,
        lastStatusCode: null,
        lastError: expect.stringMatching(/certificate/i),
        nextAttemptAt: null,
        createdAt: expect.any(String),
        deliveredAt: null,
      });
      expect(receiver.received('/untrusted')).toEqual([]);
    });

    it('fails every attempt to an endpoint that refuses connections', async () => {
      const port = await freePort();
      const hook = await createWebhook(t.http, ws.key, `https://127.0.0.1:${port}/closed`);
      await completeRun(t.http, ws.key);
      const [failed] = await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list[0]?.status === 'failed' ? list : undefined;
        },
        15_000,
        'the delivery to fail',
      );
      expect(failed).toEqual(
        expect.objectContaining({
          attempts: 3,
          lastStatusCode: null,
          lastError: 'connection refused (ECONNREFUSED)',
        }),
      );
    });

    it('retry puts a failed delivery back with a fresh attempt budget and the same webhook-id', async () => {
      const url = receiver.route('/untrusted-retry');
      const hook = await createWebhook(t.http, ws.key, url);
      await completeRun(t.http, ws.key);
      const [failed] = await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list[0]?.status === 'failed' ? list : undefined;
        },
        15_000,
        'the delivery to fail',
      );

      const res = await t.http
        .post(`/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`)
        .set('x-api-key', ws.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(
        expect.objectContaining({
          id: failed.id,
          messageId: failed.messageId,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: expect.any(String),
        }),
      );
      // Three fresh attempts, which fail again the same way.
      const [again] = await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list[0]?.status === 'failed' ? list : undefined;
        },
        15_000,
        'the retried delivery to fail again',
      );
      expect(again).toEqual(
        expect.objectContaining({ id: failed.id, messageId: failed.messageId, attempts: 3 }),
      );
      const rows = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1',
        [hook.id],
      );
      expect(rows[0].n).toBe(1);
    });

    it('pages the delivery log newest first with meta, and filters it by status', async () => {
      const url = receiver.route('/untrusted-pages');
      const hook = await createWebhook(t.http, ws.key, url);
      const runs: string[] = [];
      for (let i = 0; i < 3; i++) runs.push(await completeRun(t.http, ws.key));
      await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list.length === 3 && list.every((d) => d.status === 'failed') ? list : undefined;
        },
        15_000,
        'three failed deliveries',
      );

      const page1 = await t.http
        .get(`/v1/webhooks/${hook.id}/deliveries?page=1&pageSize=2`)
        .set('x-api-key', ws.key);
      expect(page1.status).toBe(200);
      expect(page1.body.meta).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2 });
      const page2 = await t.http
        .get(`/v1/webhooks/${hook.id}/deliveries?page=2&pageSize=2`)
        .set('x-api-key', ws.key);
      const order = [...page1.body.data, ...page2.body.data].map(
        (d: DeliveryView) => d.workflowRunId,
      );
      expect(order).toEqual([...runs].reverse());

      const delivered = await t.http
        .get(`/v1/webhooks/${hook.id}/deliveries?status=delivered`)
        .set('x-api-key', ws.key);
      expect(delivered.body.data).toEqual([]);
      expect(delivered.body.meta).toEqual({ page: 1, pageSize: 20, total: 0, totalPages: 0 });
    });
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=false', () => {
    let t: TestApp;
    let ws: WorkspaceWithKey;

    beforeAll(async () => {
      t = await createTestApp(
        {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
          WEBHOOK_RETRY_DELAYS_MS: '0,60000',
          EXECUTOR_CONCURRENCY: '4',
        },
        { databaseUrl: await createTestDatabase() },
      );
      ws = await createWorkspaceWithKey(t.http);
    });

    afterAll(async () => {
      await t.close();
    });

    it.each([
      'https://127.0.0.1:8443/hook',
      'https://10.0.0.7/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:a9fe:a9fe]/latest',
      'https://[::10.0.0.7]/hook',
      'https://[64:ff9b::8.8.8.8]/hook',
      'https://[64:ff9b:1::1]/hook',
    ])('refuses to register the private address literal %s (400 naming url)', async (url) => {
      const res = await t.http
        .post('/v1/webhooks')
        .set('x-api-key', ws.key)
        .send({ url, events: ['workflow.completed'] });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        {
          field: 'url',
          message: 'url must not point to a loopback, private, link-local or reserved address',
        },
      ]);
    });

    it('refuses to send to a name resolving to 127.0.0.1; the receiver never gets a request', async () => {
      const url = receiver.route('/ssrf', () => ({ status: 200 }), 'localhost');
      const hook = await createWebhook(t.http, ws.key, url);
      await completeRun(t.http, ws.key);

      const [attempted] = await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list[0]?.attempts === 1 && list[0].lastError ? list : undefined;
        },
        15_000,
        'the first attempt to be refused',
      );
      expect(attempted.status).toBe('pending');
      expect(attempted.lastStatusCode).toBeNull();
      // Says that the destination is refused, never what the name resolved to.
      expect(attempted.lastError).toBe('refusing to connect to localhost: destination not allowed');
      // The next attempt waits for the second configured delay (60 s).
      const due = Date.parse(attempted.nextAttemptAt!) - Date.now();
      expect(due).toBeGreaterThan(50_000);
      expect(receiver.received('/ssrf')).toEqual([]);

      // Not failed yet, so it cannot be retried.
      const retry = await t.http
        .post(`/v1/webhooks/${hook.id}/deliveries/${attempted.id}/retry`)
        .set('x-api-key', ws.key);
      expect(retry.status).toBe(409);
      expect(retry.body.error).toEqual({
        code: 'CONFLICT',
        message: 'delivery is pending; only failed deliveries can be retried',
      });
    });

    it('deleting a webhook fails its pending deliveries at once', async () => {
      const url = receiver.route('/ssrf-delete', () => ({ status: 200 }), 'localhost');
      const hook = await createWebhook(t.http, ws.key, url);
      await completeRun(t.http, ws.key);
      await eventually(
        async () => {
          const list = await deliveries(t.http, ws.key, hook.id);
          return list[0]?.attempts === 1 && list[0].status === 'pending' ? list : undefined;
        },
        15_000,
        'a pending delivery with one attempt made',
      );

      await t.http.delete(`/v1/webhooks/${hook.id}`).set('x-api-key', ws.key).expect(200);
      const rows = await t.sql<{
        status: string;
        last_error: string;
        next_attempt_at: Date | null;
      }>(
        'SELECT status, last_error, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1',
        [hook.id],
      );
      expect(rows).toEqual([
        { status: 'failed', last_error: 'webhook deleted', next_attempt_at: null },
      ]);
      const secret = await t.sql<{ secret: string; is_active: boolean }>(
        'SELECT secret, is_active FROM webhooks WHERE id = $1',
        [hook.id],
      );
      expect(secret).toEqual([{ secret: '', is_active: false }]);
    });
  });
});
