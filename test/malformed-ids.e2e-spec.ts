import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';

/**
 * Ids in paths that are not UUIDs: each route answers 404 NOT_FOUND naming its resource, exactly like an
 * unknown id, and the other checks of the request keep their place around it: authentication first,
 * then the body and the query (400), then the id (404), then the size limits of the body (413). The
 * feature suites cover unknown and foreign ids; this one pins the answers and their order.
 */
describe('malformed ids in paths', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;
  const bad = 'not-a-uuid';
  const valid = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    t = await createTestApp({
      MAX_SIGNAL_PAYLOAD_BYTES: '1024',
      MAX_APPROVAL_CONTENT_BYTES: '1024',
    });
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
  });

  type Method = 'get' | 'post' | 'delete';
  const send = (method: Method, path: string, body?: object, key: string | null = ws.key) => {
    const req = key === null ? t.http[method](path) : t.http[method](path).set('x-api-key', key);
    return body === undefined ? req : req.send(body);
  };

  // Four values per row: a test function with more parameters than the row gets a done callback.
  const routes: Array<[Method, string, object | undefined, string]> = [
    ['get', `/v1/workflow-definitions/${bad}`, undefined, 'workflow definition not found'],
    ['get', `/v1/workflow-runs/${bad}`, undefined, 'workflow run not found'],
    ['post', `/v1/workflow-runs/${bad}/cancel`, {}, 'workflow run not found'],
    ['post', `/v1/workflow-runs/${bad}/resume`, { signalType: 's' }, 'workflow run not found'],
    ['post', `/v1/workflow-runs/${bad}/retry`, {}, 'workflow run not found'],
    ['get', `/v1/workflow-runs/${bad}/events`, undefined, 'workflow run not found'],
    ['get', `/v1/workflow-runs/${bad}/steps`, undefined, 'workflow run not found'],
    ['get', `/v1/workflow-runs/${bad}/cost`, undefined, 'workflow run not found'],
    [
      'post',
      `/v1/approval-requests/${bad}/decide`,
      { decision: 'approved' },
      'approval request not found',
    ],
    ['delete', `/v1/webhooks/${bad}`, undefined, 'webhook not found'],
    ['get', `/v1/webhooks/${bad}/deliveries`, undefined, 'webhook not found'],
    ['post', `/v1/webhooks/${bad}/deliveries/${valid}/retry`, {}, 'webhook not found'],
    ['post', `/v1/webhooks/${bad}/deliveries/${bad}/retry`, {}, 'webhook not found'],
    ['post', `/v1/webhooks/${valid}/deliveries/${bad}/retry`, {}, 'webhook delivery not found'],
    ['delete', `/v1/api-keys/${bad}`, undefined, 'API key not found'],
  ];

  it.each(routes)('%s %s answers 404 NOT_FOUND naming the resource', async (m, path, body, msg) => {
    const res = await send(m, path, body);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: msg } });
  });

  it.each(routes)('%s %s answers 401 without a key, before the id', async (m, path, body) => {
    const res = await send(m, path, body, null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'AUTH_ERROR', message: 'missing x-api-key header' },
    });
  });

  it.each<[Method, string, object | undefined, string]>([
    ['post', `/v1/workflow-runs/${bad}/resume`, {}, 'signalType'],
    ['post', `/v1/workflow-runs/${bad}/resume`, { signalType: 's', extra: 1 }, 'extra'],
    ['post', `/v1/approval-requests/${bad}/decide`, { decision: 'maybe' }, 'decision'],
    ['get', `/v1/workflow-runs/${bad}/events?pageSize=0`, undefined, 'pageSize'],
    ['get', `/v1/webhooks/${bad}/deliveries?status=bogus`, undefined, 'status'],
  ])('%s %s answers 400 for the body or query before the id', async (m, path, body, field) => {
    const res = await send(m, path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((res.body.error.details.errors as Array<{ field: string }>)[0].field).toBe(field);
  });

  it('answers 404 for the id before the size limit of the body (413)', async () => {
    const big = { pad: 'x'.repeat(2000) };
    const resume = await send('post', `/v1/workflow-runs/${bad}/resume`, {
      signalType: 's',
      payload: big,
    });
    const decide = await send('post', `/v1/approval-requests/${bad}/decide`, {
      decision: 'edited',
      editedContent: big,
    });
    expect([resume.status, decide.status]).toEqual([404, 404]);
    // The same bodies with a well-formed unknown id reach the size check.
    const sized = await send('post', `/v1/workflow-runs/${randomUUID()}/resume`, {
      signalType: 's',
      payload: big,
    });
    expect(sized.status).toBe(413);
  });
});
