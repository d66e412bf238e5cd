import type { ApprovalRequest, Envelope } from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import { waitFor } from './support/wait';
import {
  createDefinition,
  eventually,
  runEvents,
  startRun,
  waitForRun,
  type Step,
} from './support/workflows';

/**
 * Approval timeouts across processes: the timer is the parked step's due time in PostgreSQL, so a
 * timeout that comes while no executor runs fires once one starts; and the approval.escalated and
 * approval.expired webhooks reach a real HTTPS receiver, signed. This process serves the API only;
 * the executors (and webhook senders) are `node dist/main.js` processes that trust the receiver's
 * certificate.
 */
describe('approval timeouts across processes', () => {
  let api: TestApp;
  let ws: WorkspaceWithKey;
  let receiver: HttpsReceiver;
  const services: ServiceProcess[] = [];

  const spawnExecutor = (): Promise<ServiceProcess> =>
    startExecutorProcess(api.databaseUrl, services, {
      NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
      EXECUTOR_CONCURRENCY: '4',
      WEBHOOK_RETRY_DELAYS_MS: '0,300,600',
    });

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    ws = await createWorkspaceWithKey(api.http);
  });

  afterEach(async () => {
    for (const s of services.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  const review = (policy: Record<string, unknown>): Step[] => [
    { type: 'approval', name: 'review', contentKey: 'draft', ...policy },
    { type: 'task', name: 'publish', handler: 'noop' },
  ];

  async function requestOf(runId: string): Promise<ApprovalRequest> {
    const id = await eventually(
      async () =>
        (await runEvents(api.http, ws.key, runId)).find((e) => e.eventType === 'APPROVAL_REQUESTED')
          ?.payload.approvalRequestId as string | undefined,
      20_000,
      `the approval request of run ${runId}`,
    );
    const res = await api.http.get(`/v1/approval-requests/${id}`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return (res.body as Envelope<ApprovalRequest>).data;
  }

  it('applies a timeout that came while no executor ran once an executor starts, after an escalation made before the crash', async () => {
    const definitionId = await createDefinition(
      api.http,
      ws.key,
      review({
        assignees: ['ann'],
        timeoutMs: 200,
        onTimeout: 'approve',
        escalateTo: { assignees: ['boss'], timeoutMs: 3000 },
      }),
    );
    const first = await spawnExecutor();
    const runId = await startRun(api.http, ws.key, definitionId, { draft: { n: 1 } });
    const { id } = await requestOf(runId);
    const escalated = await eventually(
      async () => {
        const r = await requestOf(runId);
        return r.escalatedAt !== null ? r : undefined;
      },
      20_000,
      'the escalation',
    );
    expect(escalated).toMatchObject({ id, assignees: ['boss'], escalatedFrom: ['ann'] });

    first.child.kill('SIGKILL');
    await first.exited(10_000);
    // No executor runs now: the second expiry passes in PostgreSQL's clock and nothing happens.
    await waitFor(
      'the second expiry to pass',
      async () => {
        const [row] = await api.sql<{ due: boolean }>(
          'SELECT now() >= expires_at AS due FROM approval_requests WHERE id = $1',
          [id],
        );
        return row.due ? true : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(await requestOf(runId)).toMatchObject({ decision: null, expiredAt: null });
    expect((await waitForRun(api.http, ws.key, runId, 'PAUSED')).status).toBe('PAUSED');

    await spawnExecutor();
    const done = await waitForRun(api.http, ws.key, runId, 'COMPLETED', 30_000);
    expect(done.output?.review).toMatchObject({
      decision: 'approved',
      decidedBy: 'system:timeout',
      expired: true,
    });
    const types = (await runEvents(api.http, ws.key, runId)).map((e) => e.eventType);
    const count = (type: string) => types.filter((t) => t === type).length;
    expect([
      count('APPROVAL_ESCALATED'),
      count('APPROVAL_EXPIRED'),
      count('APPROVAL_DECIDED'),
    ]).toEqual([1, 1, 1]);
    expect(await requestOf(runId)).toMatchObject({
      decision: 'approved',
      decidedBy: 'system:timeout',
    });
  });

  it('delivers approval.escalated and approval.expired to a real receiver, signed both ways', async () => {
    await spawnExecutor();
    const path = '/approval-hooks';
    const url = receiver.route(path);
    const hook = await api.http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ url, events: ['approval.escalated', 'approval.expired'] });
    expect(hook.status).toBe(201);
    receiver.setSecret(path, hook.body.data.secret as string);

    const definitionId = await createDefinition(
      api.http,
      ws.key,
      review({
        assignees: ['ann', 'bob'],
        requiredApprovals: 2,
        timeoutMs: 200,
        onTimeout: 'fail',
        escalateTo: { assignees: ['boss', 'deputy'], timeoutMs: 200 },
      }),
    );
    const runId = await startRun(api.http, ws.key, definitionId, { draft: { n: 2 } });
    const failed = await waitForRun(api.http, ws.key, runId, 'FAILED', 30_000);
    expect(failed.error).toBe(
      'the approval request expired without a decision (0 of 2 approvals; onTimeout: fail)',
    );
    const request = await requestOf(runId);
    const received = await eventually(
      async () => {
        const got = receiver.received(path);
        return got.length >= 2 ? got : undefined;
      },
      20_000,
      'two approval deliveries',
    );
    expect(received).toHaveLength(2);
    for (const delivery of received) {
      expect(delivery.hmacValid).toBe(true);
      expect(delivery.standardValid).toBe(true);
      expect(delivery.headers['x-webhook-id']).toBe(hook.body.data.id);
    }
    const body = (event: string) =>
      JSON.parse(received.find((d) => d.headers['x-webhook-event'] === event)!.body) as unknown;
    expect(body('approval.escalated')).toEqual({
      event: 'approval.escalated',
      workflowRunId: runId,
      workspaceId: ws.workspace.id,
      data: {
        approvalRequestId: request.id,
        stepName: 'review',
        assignees: ['boss', 'deputy'],
        escalatedFrom: ['ann', 'bob'],
        escalatedAt: request.escalatedAt,
        expiresAt: request.expiresAt,
      },
      timestamp: expect.any(String),
    });
    expect(body('approval.expired')).toEqual({
      event: 'approval.expired',
      workflowRunId: runId,
      workspaceId: ws.workspace.id,
      data: {
        approvalRequestId: request.id,
        stepName: 'review',
        onTimeout: 'fail',
        assignees: ['boss', 'deputy'],
        approvals: [],
        requiredApprovals: 2,
        expiresAt: request.expiresAt,
        expiredAt: request.expiredAt,
      },
      timestamp: expect.any(String),
    });
  });
});
