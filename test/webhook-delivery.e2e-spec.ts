import { Client } from 'pg';
import { checkedAgent } from './support/openapi-check';
import type TestAgent from 'supertest/lib/agent';
import { createTestDatabase, fileDatabaseUrl } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedDelivery,
  type Replier,
} from './support/https-receiver';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { createDefinition, eventually, getRun, startRun, waitForRun } from './support/workflows';

/**
 * Deliveries end to end: real service processes (`node dist/main.js`) that trust the receiver's
 * self-signed certificate through NODE_EXTRA_CA_CERTS, a real HTTPS receiver that verifies both
 * signatures, the retry schedule, timeouts, delete, a SIGKILL before sending, and two senders on one
 * database.
 */

const DELAYS = [0, 300, 600];
const TIMEOUT_MS = 1000;

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

interface Hook {
  id: string;
  secret: string;
  path: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('webhook delivery', () => {
  let receiver: HttpsReceiver;
  let databaseUrl: string;
  let db: Client;
  let service: ServiceProcess;
  let http: TestAgent;
  const started: ServiceProcess[] = [];

  async function launch(
    database: string,
    env: Record<string, string> = {},
  ): Promise<ServiceProcess> {
    const port = await freePort();
    const svc = startService({
      env: {
        PORT: String(port),
        DATABASE_URL: database,
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '200',
        // A small pool (concurrency + 10 connections): the test server's connections are shared.
        EXECUTOR_CONCURRENCY: '4',
        WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','),
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ...env,
      },
    });
    started.push(svc);
    await waitUntilReady(svc, 30_000);
    return svc;
  }

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    databaseUrl = await fileDatabaseUrl();
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    service = await launch(databaseUrl);
    http = checkedAgent(service.baseUrl);
  });

  afterAll(async () => {
    for (const svc of started) svc.kill();
    await db.end();
    await receiver.close();
  });

  let pathCounter = 0;
  /** A route on the receiver and a webhook pointing at it; the receiver learns the secret. */
  async function registerWebhook(
    agent: TestAgent,
    key: string,
    events: string[],
    reply?: Replier,
  ): Promise<Hook> {
    const path = `/hook-${++pathCounter}`;
    const url = receiver.route(path, reply);
    const res = await agent.post('/v1/webhooks').set('x-api-key', key).send({ url, events });
    if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
    receiver.setSecret(path, res.body.data.secret as string);
    return { id: res.body.data.id as string, secret: res.body.data.secret as string, path };
  }

  async function deliveries(
    agent: TestAgent,
    key: string,
    hookId: string,
  ): Promise<DeliveryView[]> {
    const res = await agent
      .get(`/v1/webhooks/${hookId}/deliveries?pageSize=100`)
      .set('x-api-key', key);
    if (res.status !== 200) throw new Error(`deliveries read failed: ${res.status} ${res.text}`);
    return res.body.data as DeliveryView[];
  }

  function receivedFor(path: string, runId: string): ReceivedDelivery[] {
    return receiver
      .received(path)
      .filter((d) => (JSON.parse(d.body) as { workflowRunId: string }).workflowRunId === runId);
  }

  async function waitForRequests(
    path: string,
    count: number,
    what: string,
    timeoutMs = 15_000,
  ): Promise<ReceivedDelivery[]> {
    return eventually(
      async () => {
        const got = receiver.received(path);
        return got.length >= count ? got : undefined;
      },
      timeoutMs,
      what,
    );
  }

  async function storedBody(deliveryId: string): Promise<string> {
    const res = await db.query<{ body: string }>(
      'SELECT body::text AS body FROM webhook_deliveries WHERE id = $1',
      [deliveryId],
    );
    return res.rows[0].body;
  }

  /** Headers and signatures every delivery must carry. */
  function expectSignedDelivery(got: ReceivedDelivery, hook: Hook, event: string): void {
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-webhook-event']).toBe(event);
    expect(got.headers['x-webhook-id']).toBe(hook.id);
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Number(got.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.hmacValid).toBe(true);
    expect(got.standardValid).toBe(true);
  }

  describe('payloads', () => {
    let ws: WorkspaceWithKey;
    let all: Hook;
    let failedOnly: Hook;

    beforeAll(async () => {
      ws = await createWorkspaceWithKey(http);
      all = await registerWebhook(http, ws.key, [
        'workflow.completed',
        'workflow.failed',
        'workflow.cancelled',
        'approval.requested',
        'approval.decided',
      ]);
      failedOnly = await registerWebhook(http, ws.key, ['workflow.failed']);
    });

    it('workflow.completed: the stored body, signed both ways, with status, output and completedAt', async () => {
      const def = await createDefinition(http, ws.key, [
        { type: 'task', name: 'first', handler: 'noop' },
        {
          type: 'task',
          name: 'total',
          handler: 'transform',
          config: { expression: '{"sum": order.qty * 2}' },
        },
      ]);
      const runId = await startRun(http, ws.key, def, { order: { qty: 21 } });
      const run = await waitForRun(http, ws.key, runId, 'COMPLETED');

      const got = await eventually(
        async () => receivedFor(all.path, runId)[0],
        15_000,
        'the workflow.completed delivery',
      );
      expectSignedDelivery(got, all, 'workflow.completed');
      const body = JSON.parse(got.body) as Record<string, unknown>;
      expect(body).toEqual({
        event: 'workflow.completed',
        workflowRunId: runId,
        workspaceId: ws.workspace.id,
        data: { status: 'COMPLETED', output: run.output, completedAt: expect.stringMatching(ISO) },
        timestamp: expect.stringMatching(ISO),
      });
      expect(run.output).toEqual({ order: { qty: 21 }, first: {}, total: { sum: 42 } });

      const log = await eventually(
        async () => {
          const list = await deliveries(http, ws.key, all.id);
          const entry = list.find((d) => d.workflowRunId === runId);
          return entry?.status === 'delivered' ? entry : undefined;
        },
        10_000,
        'the delivery to be recorded',
      );
      expect(log).toEqual({
        id: expect.any(String),
        webhookId: all.id,
        messageId: got.headers['webhook-id'],
        event: 'workflow.completed',
        workflowRunId: runId,
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        createdAt: expect.stringMatching(ISO),
        deliveredAt: expect.stringMatching(ISO),
      });
      // Byte for byte what the outbox stored in the transaction of the state change.
      expect(got.body).toBe(await storedBody(log.id));
    });

    it('workflow.failed: status, error, failedStep and failedAt, also to a webhook subscribed to it alone', async () => {
      const def = await createDefinition(http, ws.key, [
        { type: 'task', name: 'ok', handler: 'noop' },
        {
          type: 'task',
          name: 'boom',
          handler: 'transform',
          config: { expression: "$error('x')" },
          retry: { maxAttempts: 1 },
        },
      ]);
      const runId = await startRun(http, ws.key, def);
      const run = await waitForRun(http, ws.key, runId, 'FAILED');

      const got = await eventually(
        async () => receivedFor(all.path, runId)[0],
        15_000,
        'the workflow.failed delivery',
      );
      expectSignedDelivery(got, all, 'workflow.failed');
      expect(JSON.parse(got.body)).toEqual({
        event: 'workflow.failed',
        workflowRunId: runId,
        workspaceId: ws.workspace.id,
        data: {
          status: 'FAILED',
          error: run.error,
          failedStep: 'boom',
          failedAt: expect.stringMatching(ISO),
        },
        timestamp: expect.stringMatching(ISO),
      });
      expect(run.error).toContain('x');

      const alone = await eventually(
        async () => receivedFor(failedOnly.path, runId)[0],
        15_000,
        'the delivery to the failed-only webhook',
      );
      expectSignedDelivery(alone, failedOnly, 'workflow.failed');
      // Its own secret and its own webhook-id, the same event body.
      expect(alone.headers['x-webhook-signature']).not.toBe(got.headers['x-webhook-signature']);
      expect(alone.headers['webhook-id']).not.toBe(got.headers['webhook-id']);
      expect(JSON.parse(alone.body)).toEqual(JSON.parse(got.body));
    });

    it('workflow.cancelled: status and cancelledAt of a run cancelled while waiting for a signal', async () => {
      const def = await createDefinition(http, ws.key, [
        { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
      ]);
      const runId = await startRun(http, ws.key, def);
      await waitForRun(http, ws.key, runId, 'WAITING');
      const cancel = await http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key);
      expect(cancel.status).toBe(200);

      const got = await eventually(
        async () => receivedFor(all.path, runId)[0],
        15_000,
        'the workflow.cancelled delivery',
      );
      expectSignedDelivery(got, all, 'workflow.cancelled');
      expect(JSON.parse(got.body)).toEqual({
        event: 'workflow.cancelled',
        workflowRunId: runId,
        workspaceId: ws.workspace.id,
        data: { status: 'CANCELLED', cancelledAt: cancel.body.data.updatedAt },
        timestamp: expect.stringMatching(ISO),
      });
      expect((await getRun(http, ws.key, runId)).status).toBe('CANCELLED');
    });

    it('approval.requested and approval.decided: the request, its content and the decision', async () => {
      const def = await createDefinition(http, ws.key, [
        { type: 'approval', name: 'review', contentKey: 'draft', prompt: 'Publish this?' },
      ]);
      const runId = await startRun(http, ws.key, def, { draft: { text: 'hello' } });
      await waitForRun(http, ws.key, runId, 'PAUSED');

      const requested = await eventually(
        async () => receivedFor(all.path, runId)[0],
        15_000,
        'the approval.requested delivery',
      );
      expectSignedDelivery(requested, all, 'approval.requested');
      const list = await http.get('/v1/approval-requests?pending=true').set('x-api-key', ws.key);
      const approval = (list.body.data as Array<{ id: string; workflowRunId: string }>).find(
        (a) => a.workflowRunId === runId,
      );
      expect(JSON.parse(requested.body)).toEqual({
        event: 'approval.requested',
        workflowRunId: runId,
        workspaceId: ws.workspace.id,
        data: {
          approvalRequestId: approval?.id,
          stepName: 'review',
          contentKey: 'draft',
          content: { text: 'hello' },
          prompt: 'Publish this?',
        },
        timestamp: expect.stringMatching(ISO),
      });

      const decide = await http
        .post(`/v1/approval-requests/${approval?.id}/decide`)
        .set('x-api-key', ws.key)
        .send({ decision: 'approved', decidedBy: 'alice' });
      expect(decide.status).toBe(200);
      const decided = await eventually(
        async () =>
          receivedFor(all.path, runId).find(
            (d) => d.headers['x-webhook-event'] === 'approval.decided',
          ),
        15_000,
        'the approval.decided delivery',
      );
      expectSignedDelivery(decided, all, 'approval.decided');
      expect(JSON.parse(decided.body)).toEqual({
        event: 'approval.decided',
        workflowRunId: runId,
        workspaceId: ws.workspace.id,
        data: {
          approvalRequestId: approval?.id,
          stepName: 'review',
          decision: 'approved',
          decidedBy: 'alice',
          decidedAt: decide.body.data.decidedAt,
        },
        timestamp: expect.stringMatching(ISO),
      });
      await waitForRun(http, ws.key, runId, 'COMPLETED');
      const events = await eventually(
        async () => {
          const got = receivedFor(all.path, runId);
          return got.length === 3 ? got : undefined;
        },
        15_000,
        'the workflow.completed delivery after the approval',
      );
      // Deliveries are sent concurrently, so they may arrive in any order; the body's timestamp
      // (when the event happened) orders them.
      const at = (type: string) => {
        const d = events.find((e) => e.headers['x-webhook-event'] === type);
        return Date.parse((JSON.parse(d?.body ?? '{}') as { timestamp: string }).timestamp);
      };
      expect(events.map((d) => d.headers['x-webhook-event']).sort()).toEqual([
        'approval.decided',
        'approval.requested',
        'workflow.completed',
      ]);
      expect(at('approval.requested')).toBeLessThanOrEqual(at('approval.decided'));
      expect(at('approval.decided')).toBeLessThanOrEqual(at('workflow.completed'));
    });

    it('sends a webhook only the event types it subscribed to', async () => {
      // By now the workspace produced every event type; the failed-only webhook got just one.
      const got = receiver.received(failedOnly.path);
      expect(got.map((d) => d.headers['x-webhook-event'])).toEqual(['workflow.failed']);
      const types = new Set(receiver.received(all.path).map((d) => d.headers['x-webhook-event']));
      expect([...types].sort()).toEqual([
        'approval.decided',
        'approval.requested',
        'workflow.cancelled',
        'workflow.completed',
        'workflow.failed',
      ]);
    });
  });

  it.each([
    ['a NUL', 'x\u0000y'],
    ['a surrogate pair cut by the 200-character snippet', `${'a'.repeat(199)}\u{1F600}tail`],
  ])(
    'records every attempt of an endpoint whose error answer holds %s, its text made storable',
    async (_what, body) => {
      const ws = await createWorkspaceWithKey(http);
      const hook = await registerWebhook(http, ws.key, ['workflow.completed'], () => ({
        status: 500,
        body,
      }));
      const def = await createDefinition(http, ws.key, [
        { type: 'task', name: 'a', handler: 'noop' },
      ]);
      await startRun(http, ws.key, def);
      const [entry] = await eventually(
        async () => {
          const list = await deliveries(http, ws.key, hook.id);
          return list[0]?.status === 'failed' ? list : undefined;
        },
        20_000,
        'the delivery to fail after its attempts',
      );
      expect(receiver.received(hook.path)).toHaveLength(DELAYS.length);
      expect(entry).toEqual(
        expect.objectContaining({ attempts: DELAYS.length, lastStatusCode: 500 }),
      );
      expect(entry.lastError).toMatch(/^endpoint answered 500: /);
      expect(entry.lastError).toContain('\ufffd');
      expect(entry.lastError).not.toContain('\u0000');
    },
  );

  it('a receiver answering 500 twice then 200 gets three attempts at the configured delays, same webhook-id and body', async () => {
    const ws = await createWorkspaceWithKey(http);
    const hook = await registerWebhook(http, ws.key, ['workflow.completed'], (n) =>
      n <= 2 ? { status: 500, body: `boom ${n}` } : { status: 200 },
    );
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    await startRun(http, ws.key, def);

    const got = await waitForRequests(hook.path, 3, 'three attempts');
    for (const attempt of got) expectSignedDelivery(attempt, hook, 'workflow.completed');
    expect(new Set(got.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    const gaps = [got[1].at - got[0].at, got[2].at - got[1].at];
    expect(gaps[0]).toBeGreaterThanOrEqual(DELAYS[1] - 20);
    expect(gaps[0]).toBeLessThan(DELAYS[1] + 2000);
    expect(gaps[1]).toBeGreaterThanOrEqual(DELAYS[2] - 20);
    expect(gaps[1]).toBeLessThan(DELAYS[2] + 2000);

    const [entry] = await eventually(
      async () => {
        const list = await deliveries(http, ws.key, hook.id);
        return list[0]?.status === 'delivered' ? list : undefined;
      },
      10_000,
      'the delivery to be recorded',
    );
    expect(entry).toEqual(
      expect.objectContaining({
        status: 'delivered',
        attempts: 3,
        lastStatusCode: 200,
        lastError: null,
        messageId: got[0].headers['webhook-id'],
      }),
    );
    // No fourth attempt once delivered, and a delivered delivery cannot be retried.
    expect(receiver.received(hook.path)).toHaveLength(3);
    const retry = await http
      .post(`/v1/webhooks/${hook.id}/deliveries/${entry.id}/retry`)
      .set('x-api-key', ws.key);
    expect(retry.status).toBe(409);
    expect(retry.body.error.message).toBe(
      'delivery is delivered; only failed deliveries can be retried',
    );
  });

  it('fails an attempt that gets no answer within WEBHOOK_TIMEOUT_MS; after the last the delivery is failed, and retry sends it again', async () => {
    const ws = await createWorkspaceWithKey(http);
    let answer = false;
    const hook = await registerWebhook(http, ws.key, ['workflow.completed'], () =>
      answer ? { status: 204 } : 'hang',
    );
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    await startRun(http, ws.key, def);

    const [failed] = await eventually(
      async () => {
        const list = await deliveries(http, ws.key, hook.id);
        return list[0]?.status === 'failed' ? list : undefined;
      },
      20_000,
      'the delivery to fail',
    );
    expect(failed).toEqual(
      expect.objectContaining({
        status: 'failed',
        attempts: 3,
        lastStatusCode: null,
        lastError: `no answer within ${TIMEOUT_MS} ms`,
        nextAttemptAt: null,
        deliveredAt: null,
      }),
    );
    const hung = receiver.received(hook.path);
    expect(hung).toHaveLength(3);
    // Each attempt starts only after the previous one timed out plus its delay.
    expect(hung[1].at - hung[0].at).toBeGreaterThanOrEqual(TIMEOUT_MS + DELAYS[1] - 20);
    expect(hung[2].at - hung[1].at).toBeGreaterThanOrEqual(TIMEOUT_MS + DELAYS[2] - 20);

    answer = true;
    const retry = await http
      .post(`/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`)
      .set('x-api-key', ws.key);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toEqual(expect.objectContaining({ status: 'pending', attempts: 0 }));
    const [sent] = await eventually(
      async () => {
        const list = await deliveries(http, ws.key, hook.id);
        return list[0]?.status === 'delivered' ? list : undefined;
      },
      10_000,
      'the retried delivery to go through',
    );
    expect(sent).toEqual(
      expect.objectContaining({ attempts: 1, lastStatusCode: 204, lastError: null }),
    );
    const all = receiver.received(hook.path);
    expect(all).toHaveLength(4);
    expect(all[3].headers['webhook-id']).toBe(all[0].headers['webhook-id']);
    expect(all[3].body).toBe(all[0].body);
    expectSignedDelivery(all[3], hook, 'workflow.completed');
  });

  it('reads at most 64 KiB of an answer and keeps the start of an error body in lastError', async () => {
    const ws = await createWorkspaceWithKey(http);
    const huge = `${'e'.repeat(300)}${'z'.repeat(4 * 1024 * 1024)}`;
    const hook = await registerWebhook(http, ws.key, ['workflow.completed'], () => ({
      status: 502,
      body: huge,
    }));
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    await startRun(http, ws.key, def);
    const [failed] = await eventually(
      async () => {
        const list = await deliveries(http, ws.key, hook.id);
        return list[0]?.status === 'failed' ? list : undefined;
      },
      15_000,
      'the delivery to fail',
    );
    expect(failed.attempts).toBe(3);
    expect(failed.lastStatusCode).toBe(502);
    expect(failed.lastError).toBe(`endpoint answered 502: ${'e'.repeat(200)}`);
  });

  it('deleting a webhook while retries are pending stops them at once', async () => {
    const ws = await createWorkspaceWithKey(http);
    const doomed = await registerWebhook(http, ws.key, ['workflow.completed'], () => ({
      status: 500,
    }));
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    await startRun(http, ws.key, def);
    await waitForRequests(doomed.path, 1, 'the first attempt');

    const del = await http.delete(`/v1/webhooks/${doomed.id}`).set('x-api-key', ws.key);
    expect(del.status).toBe(200);
    const sentBeforeDelete = receiver.received(doomed.path).length;
    const rows = await db.query<{ status: string; next_attempt_at: Date | null }>(
      'SELECT status, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1',
      [doomed.id],
    );
    expect(rows.rows).toEqual([{ status: 'failed', next_attempt_at: null }]);

    // A marker that needs every retry delay, queued after the delete: once its third attempt has
    // arrived, the deleted webhook's retries would have been due long before.
    const marker = await registerWebhook(http, ws.key, ['workflow.completed'], (n) =>
      n <= 2 ? { status: 500 } : { status: 200 },
    );
    await startRun(http, ws.key, def);
    await waitForRequests(marker.path, 3, 'the marker to get its third attempt');
    expect(receiver.received(doomed.path)).toHaveLength(sentBeforeDelete);
    expect(sentBeforeDelete).toBe(1);
  });

  it('a process killed (SIGKILL) after the run completed but before sending delivers after restart', async () => {
    const database = await createTestDatabase();
    // The first attempt waits 60 s in this process: it dies with the delivery queued, unsent.
    const first = await launch(database, { WEBHOOK_RETRY_DELAYS_MS: '60000,300,600' });
    const agent = checkedAgent(first.baseUrl);
    const ws = await createWorkspaceWithKey(agent);
    const hook = await registerWebhook(agent, ws.key, ['workflow.completed']);
    const def = await createDefinition(agent, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    const runId = await startRun(agent, ws.key, def);
    await waitForRun(agent, ws.key, runId, 'COMPLETED');
    const [queued] = await deliveries(agent, ws.key, hook.id);
    expect(queued).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 0, workflowRunId: runId }),
    );

    first.child.kill('SIGKILL');
    expect(await first.exited(10_000)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(receiver.received(hook.path)).toEqual([]);

    const second = await launch(database);
    const [got] = await waitForRequests(hook.path, 1, 'the delivery after restart');
    expectSignedDelivery(got, hook, 'workflow.completed');
    expect(got.headers['webhook-id']).toBe(queued.messageId);
    expect(JSON.parse(got.body)).toEqual(
      expect.objectContaining({ event: 'workflow.completed', workflowRunId: runId }),
    );
    const [entry] = await eventually(
      async () => {
        const list = await deliveries(checkedAgent(second.baseUrl), ws.key, hook.id);
        return list[0]?.status === 'delivered' ? list : undefined;
      },
      10_000,
      'the delivery to be recorded',
    );
    expect(entry.attempts).toBe(1);
    second.child.kill('SIGTERM');
    await second.exited(20_000);
  });

  it('two sender processes on one database never send one attempt twice', async () => {
    const other = await launch(databaseUrl);
    const ws = await createWorkspaceWithKey(http);
    // Every event fails its first attempt and succeeds on the second.
    const seen = new Set<string>();
    const hook = await registerWebhook(http, ws.key, ['workflow.completed'], (_n, headers) => {
      const id = String(headers['webhook-id']);
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 503 };
    });
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'a', handler: 'noop' },
    ]);
    const runs = 40;
    const agents = [http, checkedAgent(other.baseUrl)];
    for (let i = 0; i < runs; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, (_, j) => startRun(agents[(i + j) % 2], ws.key, def)),
      );
    }

    const delivered = await eventually(
      async () => {
        const list = await deliveries(http, ws.key, hook.id);
        return list.length === runs && list.every((d) => d.status === 'delivered')
          ? list
          : undefined;
      },
      30_000,
      `${runs} deliveries to be delivered`,
    );
    const got = receiver.received(hook.path);
    const perMessage = new Map<string, number>();
    for (const d of got) {
      const id = String(d.headers['webhook-id']);
      perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
    }
    expect(perMessage.size).toBe(runs);
    expect([...perMessage.values()].every((n) => n === 2)).toBe(true);
    expect(got).toHaveLength(2 * runs);
    const attempts = await db.query<{ attempts: number }>(
      'SELECT attempts FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.id],
    );
    expect(attempts.rows.map((r) => r.attempts)).toEqual(Array(runs).fill(2));

    // Both processes sent: each logs the first (failed) attempts it made, and no delivery twice.
    const ids = new Set(delivered.map((d) => d.id));
    const failedBy = (svc: ServiceProcess): string[] =>
      logLines(svc)
        .filter((l) => l.msg === 'webhook delivery failed; next attempt in 300 ms')
        .map((l) => String(l.deliveryId))
        .filter((id) => ids.has(id));
    const [a, b] = [failedBy(service), failedBy(other)];
    expect(new Set([...a, ...b]).size).toBe(runs);
    expect(a.length + b.length).toBe(runs);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
  });
});
