import { randomBytes } from 'node:crypto';
import type { Response as TestResponse } from 'supertest';
import type { ApiKey, CreatedApiKey, Envelope, Workspace } from '../client';
import { SCOPES } from '../src/common/scopes';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { parseEventStream } from './support/sse-client';
import { createDefinition, eventually, startRun, waitForRun } from './support/workflows';

const SESSION_MESSAGE = 'console session expired or invalid; sign in again';
const CROSS_SITE = 'cross-site request refused: Origin does not match this service';

interface ErrorBody {
  error?: { code: string; message: string };
}

interface SessionView {
  workspaceId: string;
  workspaceName: string;
  keyId: string;
  keyName: string;
  scopes: string[];
  reviewerName: string;
  expiresAt: string;
}

/** A cookie value in the documented format (base64url of JSON {k, n, e}), for tampering tests. */
function craftCookie(fields: Record<string, unknown>): string {
  return `orchestrator_session=${Buffer.from(JSON.stringify(fields)).toString('base64url')}`;
}

/** The session cookie's `Set-Cookie` line of an answer. */
function setCookieOf(res: TestResponse): string {
  const header = res.headers['set-cookie'] as unknown as string[] | undefined;
  const line = header?.find((l) => l.startsWith('orchestrator_session='));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(res.headers)}`);
  return line;
}

/** What a browser sends back: `name=value`. */
function cookieOf(res: TestResponse): string {
  return setCookieOf(res).split(';')[0];
}

function attributesOf(line: string): string[] {
  return line
    .split(';')
    .slice(1)
    .map((a) => a.trim());
}

describe('console sessions (design §12)', () => {
  let t: TestApp;
  let a: WorkspaceWithKey;
  let b: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp();
    a = await createWorkspaceWithKey(t.http, { name: 'Workspace A' });
    b = await createWorkspaceWithKey(t.http, { name: 'Workspace B' });
  });

  afterAll(async () => {
    await t.close();
  });

  function signIn(
    body: Record<string, unknown>,
    /** `null`: no Origin header at all. */
    origin: string | null = t.baseUrl,
    app: TestApp = t,
  ) {
    const req = app.http.post('/v1/console/session');
    if (origin !== null) req.set('Origin', origin);
    return req.send(body);
  }

  async function sessionCookie(key: string, reviewerName = 'Ada Lovelace'): Promise<string> {
    const res = await signIn({ apiKey: key, reviewerName });
    expect(res.status).toBe(201);
    return cookieOf(res);
  }

  async function createKey(owner: WorkspaceWithKey, name = 'second key'): Promise<CreatedApiKey> {
    const res = await t.http.post('/v1/api-keys').set('x-api-key', owner.key).send({ name });
    expect(res.status).toBe(201);
    return (res.body as Envelope<CreatedApiKey>).data;
  }

  async function definitionCount(owner: WorkspaceWithKey): Promise<number> {
    const res = await t.http.get('/v1/workflow-definitions').set('x-api-key', owner.key);
    expect(res.status).toBe(200);
    return (res.body as { data: unknown[] }).data.length;
  }

  const definitionBody = () => ({
    name: `console-${randomBytes(4).toString('hex')}`,
    version: '1',
    steps: [{ type: 'task', name: 'only', handler: 'noop' }],
  });

  describe('sign-in', () => {
    it('answers the session and sets an HttpOnly, SameSite=Strict cookie (not Secure over http)', async () => {
      const before = Date.now();
      const res = await signIn({ apiKey: a.key, reviewerName: '  Ada Lovelace  ' });
      const after = Date.now();
      expect(res.status).toBe(201);
      const session = (res.body as Envelope<SessionView>).data;
      expect(session).toEqual({
        workspaceId: a.workspace.id,
        workspaceName: 'Workspace A',
        keyId: a.keyId,
        keyName: 'first key',
        scopes: [...SCOPES],
        reviewerName: 'Ada Lovelace',
        expiresAt: expect.any(String) as string,
      });
      const ttl = 12 * 3600 * 1000;
      const expires = Date.parse(session.expiresAt);
      expect(expires).toBeGreaterThanOrEqual(before + ttl);
      expect(expires).toBeLessThanOrEqual(after + ttl);
      const line = setCookieOf(res);
      expect(attributesOf(line).sort()).toEqual(
        ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict'].sort(),
      );
      // The cookie holds the key for the browser to send back; it never reaches the page's script.
      expect(cookieOf(res)).toMatch(/^orchestrator_session=[A-Za-z0-9_-]+$/);
    });

    it('refuses a bad, unknown or revoked key with 401 invalid or revoked API key', async () => {
      const revoked = await createKey(a, 'soon revoked');
      const del = await t.http.delete(`/v1/api-keys/${revoked.id}`).set('x-api-key', a.key);
      expect(del.status).toBe(200);
      for (const apiKey of [
        `svc_${randomBytes(32).toString('base64url')}`,
        'not-a-key',
        revoked.key,
        'svc_\u00e9\u00e8',
      ]) {
        const res = await signIn({ apiKey, reviewerName: 'Ada' });
        expect({ apiKey, status: res.status, body: res.body as unknown }).toEqual({
          apiKey,
          status: 401,
          body: {
            success: false,
            error: { code: 'AUTH_ERROR', message: 'invalid or revoked API key' },
          },
        });
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    });

    it('answers 400 naming the field for bad bodies', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ reviewerName: 'Ada' }, 'apiKey'],
        [{ apiKey: '', reviewerName: 'Ada' }, 'apiKey'],
        [{ apiKey: 42, reviewerName: 'Ada' }, 'apiKey'],
        [{ apiKey: a.key }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: '   ' }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: 'x'.repeat(101) }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: 'Ada\u0007' }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: 'Ada\nLovelace' }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: 'Ada\u202eecalevoL' }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: ['Ada'] }, 'reviewerName'],
        [{ apiKey: a.key, reviewerName: 'Ada', role: 'admin' }, 'role'],
      ];
      for (const [body, field] of cases) {
        const res = await signIn(body);
        expect({ body, status: res.status, code: (res.body as ErrorBody).error?.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        const errors = (res.body as { error: { details: { errors: { field: string }[] } } }).error
          .details.errors;
        expect(errors.map((e) => e.field)).toContain(field);
      }
      // 100 characters after trimming are fine.
      const res = await signIn({ apiKey: a.key, reviewerName: ` ${'x'.repeat(100)} ` });
      expect(res.status).toBe(201);
    });

    it('refuses a sign-in without an Origin of this service (403 FORBIDDEN), before anything else', async () => {
      for (const origin of [null, 'https://evil.example', 'null', `${t.baseUrl}.evil.example`]) {
        const res = await signIn({ apiKey: a.key, reviewerName: 'Ada' }, origin);
        expect({ origin, status: res.status, body: res.body as unknown }).toEqual({
          origin,
          status: 403,
          body: { success: false, error: { code: 'FORBIDDEN', message: CROSS_SITE } },
        });
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      // Even a bad body is refused for its Origin first: nothing about the request is looked at.
      const res = await signIn({}, 'https://evil.example');
      expect(res.status).toBe(403);
    });
  });

  describe('using the session', () => {
    it('authenticates reads with the cookie alone', async () => {
      const cookie = await sessionCookie(a.key);
      const res = await t.http.get('/v1/workspaces/current').set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect((res.body as Envelope<Workspace>).data.id).toBe(a.workspace.id);
    });

    it('accepts a change through the cookie with this service as Origin', async () => {
      const cookie = await sessionCookie(a.key);
      const before = await definitionCount(a);
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl)
        .send(definitionBody());
      expect(res.status).toBe(201);
      expect(await definitionCount(a)).toBe(before + 1);
    });

    it('refuses a change through the cookie without a matching Origin (403 FORBIDDEN), changing nothing', async () => {
      const cookie = await sessionCookie(a.key);
      const before = await definitionCount(a);
      const other = await createKey(a, 'not to be revoked');
      for (const origin of [undefined, 'https://evil.example', 'null', 'http://localhost:1']) {
        const post = t.http.post('/v1/workflow-definitions').set('Cookie', cookie);
        if (origin !== undefined) post.set('Origin', origin);
        const created = await post.send(definitionBody());
        const del = t.http.delete(`/v1/api-keys/${other.id}`).set('Cookie', cookie);
        if (origin !== undefined) del.set('Origin', origin);
        const revoked = await del;
        for (const res of [created, revoked]) {
          expect({ origin, status: res.status, body: res.body as unknown }).toEqual({
            origin,
            status: 403,
            body: { success: false, error: { code: 'FORBIDDEN', message: CROSS_SITE } },
          });
        }
      }
      expect(await definitionCount(a)).toBe(before);
      const keys = await t.http.get('/v1/api-keys').set('x-api-key', a.key);
      const still = (keys.body as Envelope<ApiKey[]>).data.find((k) => k.id === other.id);
      expect(still?.revokedAt).toBeNull();
    });

    it('never asks x-api-key requests for an Origin, and x-api-key wins over a cookie', async () => {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', a.key)
        .send(definitionBody());
      expect(res.status).toBe(201);
      const cookieOfA = await sessionCookie(a.key);
      const both = await t.http
        .get('/v1/workspaces/current')
        .set('x-api-key', b.key)
        .set('Cookie', cookieOfA);
      expect((both.body as Envelope<Workspace>).data.id).toBe(b.workspace.id);
      const change = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', b.key)
        .set('Cookie', cookieOfA)
        .send(definitionBody());
      expect(change.status).toBe(201);
    });

    it("carries the key's scopes, in canonical order, and the cookie is held to them", async () => {
      const res = await t.http
        .post('/v1/api-keys')
        .set('x-api-key', a.key)
        .send({ name: 'reviewer', scopes: ['approvals:decide', 'runs:read', 'approvals:read'] });
      expect(res.status).toBe(201);
      const reviewer = (res.body as Envelope<CreatedApiKey>).data;
      const signedIn = await signIn({ apiKey: reviewer.key, reviewerName: 'Rita' });
      expect(signedIn.status).toBe(201);
      const scopes = ['runs:read', 'approvals:read', 'approvals:decide'];
      expect((signedIn.body as Envelope<SessionView>).data.scopes).toEqual(scopes);
      const cookie = cookieOf(signedIn);
      const current = await t.http.get('/v1/console/session').set('Cookie', cookie);
      expect(current.status).toBe(200);
      expect((current.body as Envelope<SessionView>).data.scopes).toEqual(scopes);

      expect((await t.http.get('/v1/workflow-runs').set('Cookie', cookie)).status).toBe(200);
      const before = await definitionCount(a);
      const refused = await t.http
        .post('/v1/workflow-definitions')
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl)
        .send(definitionBody());
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        success: false,
        error: { code: 'FORBIDDEN', message: 'API key lacks scope definitions:write' },
      });
      expect(await definitionCount(a)).toBe(before);
    });

    it('answers the session at GET /v1/console/session', async () => {
      const signedIn = await signIn({ apiKey: a.key, reviewerName: 'Grace Hopper' });
      const res = await t.http.get('/v1/console/session').set('Cookie', cookieOf(signedIn));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(signedIn.body);

      const none = await t.http.get('/v1/console/session');
      expect(none.status).toBe(401);
      expect((none.body as ErrorBody).error?.message).toBe('missing x-api-key header');
      const keyOnly = await t.http.get('/v1/console/session').set('x-api-key', a.key);
      expect(keyOnly.status).toBe(401);
      expect((keyOnly.body as ErrorBody).error?.message).toBe(SESSION_MESSAGE);
    });

    it('streams run events through the cookie', async () => {
      const definitionId = await createDefinition(t.http, a.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const runId = await startRun(t.http, a.key, definitionId);
      await waitForRun(t.http, a.key, runId, 'COMPLETED');
      const cookie = await sessionCookie(a.key);
      const res = await t.http
        .get(`/v1/workflow-runs/${runId}/events/stream`)
        .set('Cookie', cookie)
        .buffer(true)
        .parse((response, done) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const { messages } = parseEventStream(res.body as string);
      expect(messages.map((m) => m.event)).toContain('WORKFLOW_COMPLETED');
    });
  });

  describe('sign-out and the end of a session', () => {
    it('clears the cookie, with or without a session', async () => {
      const cookie = await sessionCookie(a.key);
      for (const headers of [{ Cookie: cookie }, {}, { Cookie: 'orchestrator_session=garbage' }]) {
        const res = await t.http.delete('/v1/console/session').set(headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true, data: { signedOut: true } });
        const line = setCookieOf(res);
        expect(line.split(';')[0]).toBe('orchestrator_session=');
        expect(attributesOf(line).sort()).toEqual(
          ['HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Strict'].sort(),
        );
      }
    });

    it('refuses an expired session with 401', async () => {
      for (const e of [Date.now() - 1, Date.now() - 3600_000]) {
        const cookie = craftCookie({ k: a.key, n: 'Ada', e });
        const res = await t.http.get('/v1/workspaces/current').set('Cookie', cookie);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'AUTH_ERROR', message: SESSION_MESSAGE },
        });
      }
    });

    it('ends the sessions of a revoked key at their next request', async () => {
      const key = await createKey(a, 'revoked while signed in');
      const cookie = await sessionCookie(key.key);
      expect((await t.http.get('/v1/workspaces/current').set('Cookie', cookie)).status).toBe(200);
      const del = await t.http.delete(`/v1/api-keys/${key.id}`).set('x-api-key', a.key);
      expect(del.status).toBe(200);
      for (const path of ['/v1/workspaces/current', '/v1/console/session']) {
        const res = await t.http.get(path).set('Cookie', cookie);
        expect(res.status).toBe(401);
        expect((res.body as ErrorBody).error?.message).toBe(SESSION_MESSAGE);
      }
    });

    it('answers 401, never 500, for tampered or oversized cookies', async () => {
      const later = Date.now() + 3600_000;
      const raw = (value: string) => `orchestrator_session=${value}`;
      const cookies = [
        raw(''),
        raw('not base64!'),
        raw(Buffer.from('not json').toString('base64url')),
        raw(Buffer.from('[1,2]').toString('base64url')),
        raw(Buffer.from('null').toString('base64url')),
        raw(`"${Buffer.from('{}').toString('base64url')}"`),
        craftCookie({}),
        craftCookie({ k: a.key, n: 'Ada' }),
        craftCookie({ k: a.key, n: 'Ada', e: String(later) }),
        craftCookie({ k: a.key, n: 'Ada', e: 1e300 }),
        craftCookie({ k: a.key, n: 'Ada', e: later + 365 * 24 * 3600_000 }),
        craftCookie({ k: a.key, n: 'Ada\u0000', e: later }),
        craftCookie({ k: a.key, n: '', e: later }),
        craftCookie({ k: a.key, n: { $ne: null }, e: later }),
        craftCookie({ k: 42, n: 'Ada', e: later }),
        craftCookie({ k: `svc_${randomBytes(32).toString('base64url')}`, n: 'Ada', e: later }),
        craftCookie({ k: 'x'.repeat(600), n: 'Ada', e: later }),
        craftCookie({ k: a.key, n: 'Ada', e: later, pad: 'x'.repeat(1024) }),
        raw('A'.repeat(4096)),
      ];
      for (const cookie of cookies) {
        const res = await t.http.get('/v1/workspaces/current').set('Cookie', cookie);
        expect({
          cookie: cookie.slice(0, 80),
          status: res.status,
          body: res.body as unknown,
        }).toEqual({
          cookie: cookie.slice(0, 80),
          status: 401,
          body: { success: false, error: { code: 'AUTH_ERROR', message: SESSION_MESSAGE } },
        });
      }
      // The same fields, well formed, are a session: the failures above are the tampering.
      const fine = craftCookie({ k: a.key, n: 'Ada', e: later });
      expect((await t.http.get('/v1/workspaces/current').set('Cookie', fine)).status).toBe(200);
    });
  });

  describe('what a session may do', () => {
    it('records the reviewer name as decidedBy of a decision made through the session', async () => {
      const definitionId = await createDefinition(t.http, a.key, [
        { type: 'approval', name: 'review', contentKey: 'draft', prompt: 'Publish this?' },
      ]);
      const viaSession = await startRun(t.http, a.key, definitionId, { draft: { text: 'one' } });
      const viaKey = await startRun(t.http, a.key, definitionId, { draft: { text: 'two' } });
      const requests = await Promise.all(
        [viaSession, viaKey].map(async (runId) => {
          await waitForRun(t.http, a.key, runId, 'PAUSED');
          return eventually(async () => {
            const res = await t.http
              .get('/v1/approval-requests?pending=true')
              .set('x-api-key', a.key);
            return (res.body as Envelope<{ id: string; workflowRunId: string }[]>).data.find(
              (r) => r.workflowRunId === runId,
            );
          });
        }),
      );
      const cookie = await sessionCookie(a.key, 'Katherine Johnson');
      const decided = await t.http
        .post(`/v1/approval-requests/${requests[0].id}/decide`)
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl)
        .send({ decision: 'approved', decidedBy: 'someone else' });
      expect(decided.status).toBe(200);
      expect((decided.body as Envelope<{ decidedBy: string }>).data.decidedBy).toBe(
        'Katherine Johnson',
      );
      const byKey = await t.http
        .post(`/v1/approval-requests/${requests[1].id}/decide`)
        .set('x-api-key', a.key)
        .send({ decision: 'approved' });
      expect((byKey.body as Envelope<{ decidedBy: string }>).data.decidedBy).toBe(
        `api-key:${a.keyId}`,
      );
      await waitForRun(t.http, a.key, viaSession, 'COMPLETED');
    });

    it("cannot revoke the session's own key, but another key of the workspace", async () => {
      const own = await createKey(a, 'console key');
      const other = await createKey(a, 'other key');
      const cookie = await sessionCookie(own.key);
      const self = await t.http
        .delete(`/v1/api-keys/${own.id}`)
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl);
      expect(self.status).toBe(409);
      expect(self.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: 'cannot revoke the API key of this console session' },
      });
      const res = await t.http
        .delete(`/v1/api-keys/${other.id}`)
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl);
      expect(res.status).toBe(200);
    });

    it("never shows a session of one workspace another workspace's data", async () => {
      const ofB = await createDefinition(t.http, b.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const runOfB = await startRun(t.http, b.key, ofB);
      const cookie = await sessionCookie(a.key);
      const definition = await t.http.get(`/v1/workflow-definitions/${ofB}`).set('Cookie', cookie);
      expect(definition.status).toBe(404);
      const run = await t.http.get(`/v1/workflow-runs/${runOfB}`).set('Cookie', cookie);
      expect(run.status).toBe(404);
      const list = await t.http.get('/v1/workflow-definitions').set('Cookie', cookie);
      expect((list.body as Envelope<{ id: string }[]>).data.map((d) => d.id)).not.toContain(ofB);
      const cancel = await t.http
        .post(`/v1/workflow-runs/${runOfB}/cancel`)
        .set('Cookie', cookie)
        .set('Origin', t.baseUrl);
      expect(cancel.status).toBe(404);
    });
  });

  describe('deployment settings', () => {
    it('marks the cookie Secure over HTTPS behind a trusted proxy, and takes the proxied origin', async () => {
      const proxied = await createTestApp(
        { TRUST_PROXY: 'loopback' },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const host = new URL(proxied.baseUrl).host;
        const res = await proxied.http
          .post('/v1/console/session')
          .set('X-Forwarded-Proto', 'https')
          .set('Origin', `https://${host}`)
          .send({ apiKey: a.key, reviewerName: 'Ada' });
        expect(res.status).toBe(201);
        expect(attributesOf(setCookieOf(res))).toContain('Secure');
        const out = await proxied.http
          .delete('/v1/console/session')
          .set('X-Forwarded-Proto', 'https');
        expect(attributesOf(setCookieOf(out))).toContain('Secure');
      } finally {
        await proxied.close();
      }
      // Without TRUST_PROXY the header is the client's own word: plain http, and an https Origin is
      // another origin.
      const host = new URL(t.baseUrl).host;
      const untrusted = await t.http
        .post('/v1/console/session')
        .set('X-Forwarded-Proto', 'https')
        .set('Origin', `https://${host}`)
        .send({ apiKey: a.key, reviewerName: 'Ada' });
      expect(untrusted.status).toBe(403);
      const plain = await t.http
        .post('/v1/console/session')
        .set('X-Forwarded-Proto', 'https')
        .set('Origin', t.baseUrl)
        .send({ apiKey: a.key, reviewerName: 'Ada' });
      expect(plain.status).toBe(201);
      expect(attributesOf(setCookieOf(plain))).not.toContain('Secure');
    });

    it('accepts the origins of CONSOLE_ALLOWED_ORIGINS beside its own', async () => {
      const allowed = 'https://console.example.com';
      const app = await createTestApp(
        { CONSOLE_ALLOWED_ORIGINS: `${allowed}, https://other.example.com` },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const res = await signIn({ apiKey: a.key, reviewerName: 'Ada' }, allowed, app);
        expect(res.status).toBe(201);
        const change = await app.http
          .post('/v1/workflow-definitions')
          .set('Cookie', cookieOf(res))
          .set('Origin', allowed)
          .send(definitionBody());
        expect(change.status).toBe(201);
        const own = await signIn({ apiKey: a.key, reviewerName: 'Ada' }, app.baseUrl, app);
        expect(own.status).toBe(201);
        const foreign = await signIn(
          { apiKey: a.key, reviewerName: 'Ada' },
          'https://x.example',
          app,
        );
        expect(foreign.status).toBe(403);
      } finally {
        await app.close();
      }
    });

    it('throttles sign-in attempts per client address', async () => {
      const limited = await createTestApp(
        { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '600000' },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const guess = `svc_${randomBytes(32).toString('base64url')}`;
          const res = await signIn(
            { apiKey: guess, reviewerName: 'Mallory' },
            limited.baseUrl,
            limited,
          );
          statuses.push(res.status);
        }
        expect(statuses).toEqual([401, 401, 401, 429, 429]);
        // The right key is throttled too once the address has spent its budget.
        const right = await signIn(
          { apiKey: a.key, reviewerName: 'Ada' },
          limited.baseUrl,
          limited,
        );
        expect(right.status).toBe(429);
      } finally {
        await limited.close();
      }
    });
  });
});
