import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import {
  createDefinition,
  eventually,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
  type Step,
} from './support/workflows';

interface ApprovalView {
  id: string;
  workflowRunId: string;
  stepRunId: string;
  stepName: string;
  contentKey: string;
  content: Record<string, unknown>;
  prompt: string;
  decision: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
}

const ofType = (events: EventView[], type: string) => events.filter((e) => e.eventType === type);

/** Review and publish steps around content already in the run input. */
const reviewThenPublish = (contentKey: string, extra: Record<string, unknown> = {}): Step[] => [
  { type: 'approval', name: 'review', contentKey, prompt: 'Publish this?', ...extra },
  {
    type: 'task',
    name: 'publish',
    handler: 'transform',
    config: { expression: `{ "published": ${contentKey} }` },
  },
];

describe('approvals', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp(fakeLlmEnv(openai, anthropic));
    ws = await createWorkspaceWithKey(t.http);
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function listApprovals(key: string, query = ''): Promise<ApprovalView[]> {
    const res = await t.http.get(`/v1/approval-requests${query}`).set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body.meta).toBeUndefined();
    return res.body.data as ApprovalView[];
  }

  /** The pending request of a run, once the run is PAUSED. */
  async function pendingRequest(key: string, runId: string): Promise<ApprovalView> {
    await waitForRun(t.http, key, runId, 'PAUSED');
    return eventually(
      async () =>
        (await listApprovals(key, '?pending=true')).find((a) => a.workflowRunId === runId),
      10_000,
      `a pending approval request of run ${runId}`,
    );
  }

  async function pausedRun(
    steps: Step[],
    input: Record<string, unknown>,
    key = ws.key,
  ): Promise<{ runId: string; request: ApprovalView }> {
    const definitionId = await createDefinition(t.http, key, steps);
    const runId = await startRun(t.http, key, definitionId, input);
    return { runId, request: await pendingRequest(key, runId) };
  }

  const decide = (id: string, body: Record<string, unknown>, key = ws.key) =>
    t.http.post(`/v1/approval-requests/${id}/decide`).set('x-api-key', key).send(body);

  it('pauses at the approval step with a request for the drafted content, and publishes it unchanged when approved', async () => {
    const { key, keyId } = await createWorkspaceWithKey(t.http);
    const hook = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', key)
      .send({
        url: 'https://127.0.0.1:9/hooks',
        events: ['approval.requested', 'approval.decided'],
      });
    expect(hook.status).toBe(201);
    const model = `writer-${randomBytes(3).toString('hex')}`;
    openai.script(model, { text: 'Green tea is good for you.' });
    const definitionId = await createDefinition(t.http, key, [
      {
        type: 'llm',
        name: 'draft',
        model,
        messages: [{ role: 'user', content: 'Write one sentence about {{topic}}.' }],
      },
      { type: 'approval', name: 'review', contentKey: 'draft.text', prompt: 'Publish this?' },
      {
        type: 'task',
        name: 'publish',
        handler: 'http',
        config: {
          url: `${openai.origin}/publish`,
          method: 'POST',
          body: { text: '{{draft.text}}' },
        },
      },
    ]);
    const runId = await startRun(t.http, key, definitionId, { topic: 'tea' });
    const request = await pendingRequest(key, runId);

    const run = await getRun(t.http, key, runId);
    expect(run.currentStepIndex).toBe(1);
    expect(request).toEqual({
      id: expect.any(String),
      workflowRunId: runId,
      stepRunId: expect.any(String),
      stepName: 'review',
      contentKey: 'draft.text',
      content: { value: 'Green tea is good for you.' },
      prompt: 'Publish this?',
      decision: null,
      decidedBy: null,
      decidedAt: null,
      comment: null,
      editedContent: null,
      createdAt: expect.any(String),
      // Without a policy: no assignees, a single approver, no timeout.
      assignees: [],
      requiredApprovals: 1,
      approvals: [],
      expiresAt: null,
      onTimeout: null,
      escalatedAt: null,
      escalatedFrom: null,
      expiredAt: null,
    });
    const requested = ofType(await runEvents(t.http, key, runId), 'APPROVAL_REQUESTED');
    expect(requested.map((e) => [e.stepRunId, e.payload])).toEqual([
      [
        request.stepRunId,
        {
          stepName: 'review',
          approvalRequestId: request.id,
          contentKey: 'draft.text',
          prompt: 'Publish this?',
        },
      ],
    ]);

    const res = await decide(request.id, { decision: 'approved', comment: 'Looks good' }, key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: request.id,
        workflowRunId: runId,
        stepRunId: request.stepRunId,
        stepName: 'review',
        decision: 'approved',
        decidedBy: `api-key:${keyId}`,
        decidedAt: expect.any(String),
        createdAt: request.createdAt,
        requiredApprovals: 1,
        approvals: [
          {
            decidedBy: `api-key:${keyId}`,
            decision: 'approved',
            decidedAt: expect.any(String),
            comment: 'Looks good',
          },
        ],
      },
    });
    expect(res.body.data.approvals[0].decidedAt).toBe(res.body.data.decidedAt);

    const done = await waitForRun(t.http, key, runId, 'COMPLETED');
    expect(openai.requestsTo('/publish').map((r) => r.body)).toEqual([
      { text: 'Green tea is good for you.' },
    ]);
    expect(done.output?.review).toMatchObject({
      decision: 'approved',
      content: { value: 'Green tea is good for you.' },
      comment: 'Looks good',
    });
    const decided = ofType(await runEvents(t.http, key, runId), 'APPROVAL_DECIDED');
    expect(decided.map((e) => e.payload)).toEqual([
      {
        stepName: 'review',
        approvalRequestId: request.id,
        decision: 'approved',
        decidedBy: `api-key:${keyId}`,
        comment: 'Looks good',
      },
    ]);
    expect((await listApprovals(key, '?pending=true')).map((a) => a.id)).not.toContain(request.id);
    expect(await listApprovals(key, '?pending=false')).toEqual([
      expect.objectContaining({
        id: request.id,
        decision: 'approved',
        decidedBy: `api-key:${keyId}`,
        decidedAt: res.body.data.decidedAt,
        comment: 'Looks good',
      }),
    ]);

    // Both approval events went to the webhook outbox with the data of design §8.
    const deliveries = await t.sql<{ event_type: string; body: { data: unknown } }>(
      `SELECT event_type, body FROM webhook_deliveries WHERE run_id = $1 AND event_type LIKE 'approval.%'
       ORDER BY created_at`,
      [runId],
    );
    expect(deliveries.map((d) => [d.event_type, d.body.data])).toEqual([
      [
        'approval.requested',
        {
          approvalRequestId: request.id,
          stepName: 'review',
          contentKey: 'draft.text',
          content: { value: 'Green tea is good for you.' },
          prompt: 'Publish this?',
        },
      ],
      [
        'approval.decided',
        {
          approvalRequestId: request.id,
          stepName: 'review',
          decision: 'approved',
          decidedBy: `api-key:${keyId}`,
          decidedAt: res.body.data.decidedAt,
        },
      ],
    ]);
  });

  it('continues with editedContent in place of the object at a nested contentKey', async () => {
    const input = { post: { article: { title: 'Draft', body: 'tbd' }, author: 'ann' } };
    const { runId, request } = await pausedRun(reviewThenPublish('post.article'), input);
    expect(request.content).toEqual({ title: 'Draft', body: 'tbd' });
    const edited = { title: 'Final', body: 'Ready to ship' };
    const res = await decide(request.id, {
      decision: 'edited',
      editedContent: edited,
      decidedBy: 'editor@example.com',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ decision: 'edited', decidedBy: 'editor@example.com' });
    const run = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(run.output?.post).toEqual({ article: edited, author: 'ann' });
    expect(run.output?.publish).toEqual({ published: edited });
    expect(run.output?.review).toMatchObject({ decision: 'edited', content: edited });
  });

  it('puts an edited {value} back as the plain value when the content was not an object', async () => {
    const { runId, request } = await pausedRun(reviewThenPublish('draft.text'), {
      draft: { text: 'teh typo', words: 2 },
    });
    expect(request.content).toEqual({ value: 'teh typo' });
    await decide(request.id, { decision: 'edited', editedContent: { value: 'the typo' } }).expect(
      200,
    );
    const run = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(run.output?.draft).toEqual({ text: 'the typo', words: 2 });
    expect(run.output?.publish).toEqual({ published: 'the typo' });
  });

  it('regenerates the draft after a rejection, prompting the model with the comment, and asks again', async () => {
    const model = `writer-${randomBytes(3).toString('hex')}`;
    openai.script(model, { text: 'Tea.' }, { text: 'Green tea, brewed at 80 °C, is mellow.' });
    const steps: Step[] = [
      {
        type: 'llm',
        name: 'draft',
        model,
        messages: [
          { role: 'system', content: 'You write short posts.' },
          {
            role: 'user',
            content: 'Write about {{topic}}. Reviewer feedback: {{rejection.comment}}',
          },
        ],
      },
      {
        type: 'approval',
        name: 'review',
        contentKey: 'draft.text',
        prompt: 'Publish?',
        retry: { maxAttempts: 3 },
      },
      { type: 'task', name: 'publish', handler: 'transform', config: { expression: 'draft.text' } },
    ];
    const { runId, request } = await pausedRun(steps, {
      topic: 'tea',
      rejection: { comment: 'none yet' },
    });
    expect(request.content).toEqual({ value: 'Tea.' });

    const rejected = await decide(request.id, {
      decision: 'rejected',
      comment: 'Too short: mention green tea and the temperature',
    });
    expect(rejected.status).toBe(200);

    const second = await eventually(
      async () =>
        (await listApprovals(ws.key, '?pending=true')).find(
          (a) => a.workflowRunId === runId && a.id !== request.id,
        ),
      15_000,
      'the second approval request',
    );
    expect(second.content).toEqual({ value: 'Green tea, brewed at 80 °C, is mellow.' });
    const prompts = openai.requestsFor(model).map((r) => r.body.messages?.[1].content);
    expect(prompts).toEqual([
      'Write about tea. Reviewer feedback: none yet',
      'Write about tea. Reviewer feedback: Too short: mention green tea and the temperature',
    ]);

    await decide(second.id, { decision: 'approved' }).expect(200);
    const run = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(run.output?.rejection).toEqual({
      decision: 'rejected',
      comment: 'Too short: mention green tea and the temperature',
    });
    expect(run.output?.publish).toEqual({ value: 'Green tea, brewed at 80 °C, is mellow.' });

    const events = await runEvents(t.http, ws.key, runId);
    expect(ofType(events, 'APPROVAL_REQUESTED')).toHaveLength(2);
    expect(ofType(events, 'APPROVAL_DECIDED').map((e) => e.payload.decision)).toEqual([
      'rejected',
      'approved',
    ]);
    expect(ofType(events, 'STEP_FAILED').map((e) => e.payload)).toEqual([
      {
        stepName: 'review',
        attempt: 1,
        error: `rejected by api-key:${ws.keyId}: Too short: mention green tea and the temperature`,
      },
    ]);
    expect(ofType(events, 'WORKFLOW_FAILED')).toHaveLength(0);
  });

  it('fails the run when a rejection leaves no attempts (default: one)', async () => {
    const { runId, request } = await pausedRun(reviewThenPublish('draft'), {
      draft: { text: 'x' },
    });
    await decide(request.id, { decision: 'rejected', comment: 'No.' }).expect(200);
    const run = await waitForRun(t.http, ws.key, runId, 'FAILED');
    expect(run.error).toBe(`rejected by api-key:${ws.keyId}: No.`);
    expect(run.output).toBeNull();
    const events = await runEvents(t.http, ws.key, runId);
    expect(ofType(events, 'WORKFLOW_FAILED')).toHaveLength(1);
    expect(ofType(events, 'APPROVAL_REQUESTED')).toHaveLength(1);
  });

  it('fails the run at the last allowed rejection when regenerating from a named step', async () => {
    const steps: Step[] = [
      { type: 'task', name: 'prepare', handler: 'transform', config: { expression: '{"n": 1}' } },
      {
        type: 'task',
        name: 'write',
        handler: 'transform',
        config: { expression: '{"text": "v"}' },
      },
      {
        type: 'approval',
        name: 'review',
        contentKey: 'write',
        regenerateFrom: 'prepare',
        retry: { maxAttempts: 2 },
      },
    ];
    const { runId, request } = await pausedRun(steps, {});
    await decide(request.id, { decision: 'rejected' }).expect(200);
    const second = await eventually(
      async () =>
        (await listApprovals(ws.key, '?pending=true')).find(
          (a) => a.workflowRunId === runId && a.id !== request.id,
        ),
      15_000,
      'the second approval request',
    );
    await decide(second.id, { decision: 'rejected' }).expect(200);
    const run = await waitForRun(t.http, ws.key, runId, 'FAILED');
    expect(run.error).toBe(`rejected by api-key:${ws.keyId}`);
    const started = ofType(await runEvents(t.http, ws.key, runId), 'STEP_STARTED');
    expect(started.map((e) => e.payload.stepName)).toEqual([
      'prepare',
      'write',
      'review',
      'prepare',
      'write',
      'review',
    ]);
  });

  it('answers 409 when the request was already decided', async () => {
    const { runId, request } = await pausedRun(reviewThenPublish('draft'), {
      draft: { text: 'x' },
    });
    await decide(request.id, { decision: 'approved' }).expect(200);
    const again = await decide(request.id, { decision: 'rejected' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'CONFLICT',
      message: 'approval request was already decided (approved)',
    });
    await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    const afterRun = await decide(request.id, { decision: 'approved' });
    expect(afterRun.status).toBe(409);
  });

  it('answers one 200 and one 409 to two concurrent decisions', async () => {
    const { runId, request } = await pausedRun(reviewThenPublish('draft'), {
      draft: { text: 'x' },
    });
    const answers = await Promise.all([
      decide(request.id, { decision: 'approved' }),
      decide(request.id, { decision: 'rejected' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.data.decision as string;
    const run = await waitForRun(t.http, ws.key, runId, ['COMPLETED', 'FAILED']);
    expect(run.status).toBe(winner === 'approved' ? 'COMPLETED' : 'FAILED');
    expect(ofType(await runEvents(t.http, ws.key, runId), 'APPROVAL_DECIDED')).toHaveLength(1);
  });

  it('answers 409 to a decision after the paused run was cancelled', async () => {
    const { runId, request } = await pausedRun(reviewThenPublish('draft'), {
      draft: { text: 'x' },
    });
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
    const res = await decide(request.id, { decision: 'approved' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'CONFLICT',
      message: 'run is CANCELLED; the approval request can no longer be decided',
    });
    expect((await getRun(t.http, ws.key, runId)).status).toBe('CANCELLED');
    const [listed] = (await listApprovals(ws.key)).filter((a) => a.id === request.id);
    expect(listed.decision).toBeNull();
  });

  it("answers 404 for another workspace's request and for unknown ids, and lists only the caller's", async () => {
    const { request } = await pausedRun(reviewThenPublish('draft'), { draft: { text: 'x' } });
    const other = await createWorkspaceWithKey(t.http);
    const res = await decide(request.id, { decision: 'approved' }, other.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(await listApprovals(other.key)).toEqual([]);
    await decide('00000000-0000-4000-8000-000000000000', { decision: 'approved' }).expect(404);
    await decide('not-a-uuid', { decision: 'approved' }).expect(404);
    // Still undecided for its owner.
    expect((await listApprovals(ws.key, '?pending=true')).map((a) => a.id)).toContain(request.id);
  });

  it('lists requests newest first and filters by pending', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const first = await pausedRun(reviewThenPublish('draft'), { draft: { text: '1' } }, key);
    const second = await pausedRun(reviewThenPublish('draft'), { draft: { text: '2' } }, key);
    await decide(first.request.id, { decision: 'approved' }, key).expect(200);
    expect((await listApprovals(key)).map((a) => a.id)).toEqual([
      second.request.id,
      first.request.id,
    ]);
    expect((await listApprovals(key, '?pending=true')).map((a) => a.id)).toEqual([
      second.request.id,
    ]);
    expect((await listApprovals(key, '?pending=false')).map((a) => a.id)).toEqual([
      first.request.id,
    ]);
    for (const bad of ['?pending=yes', '?pending=', '?pending=TRUE', '?status=open']) {
      const res = await t.http.get(`/v1/approval-requests${bad}`).set('x-api-key', key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 400 to invalid decisions, naming the field, and leaves the request undecided', async () => {
    const { request } = await pausedRun(reviewThenPublish('draft'), { draft: { text: 'x' } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'decision'],
      [{ decision: 'maybe' }, 'decision'],
      [{ decision: 'edited' }, 'editedContent'],
      [{ decision: 'edited', editedContent: 'new text' }, 'editedContent'],
      [{ decision: 'edited', editedContent: ['a'] }, 'editedContent'],
      [{ decision: 'edited', editedContent: null }, 'editedContent'],
      [{ decision: 'approved', comment: 'x'.repeat(2001) }, 'comment'],
      [{ decision: 'approved', decidedBy: '' }, 'decidedBy'],
      [{ decision: 'approved', reason: 'extra' }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const res = await decide(request.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const [listed] = (await listApprovals(ws.key)).filter((a) => a.id === request.id);
    expect(listed.decision).toBeNull();
  });

  it('fails the approval step when contentKey names nothing in the state', async () => {
    const definitionId = await createDefinition(t.http, ws.key, reviewThenPublish('missing.path'));
    const runId = await startRun(t.http, ws.key, definitionId, {});
    const run = await waitForRun(t.http, ws.key, runId, 'FAILED');
    expect(run.error).toBe('no value in the run state at contentKey "missing.path"');
  });
});

describe('approval list size', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ APPROVAL_LIST_MAX_ITEMS: '3' });
  });

  afterAll(async () => {
    await t.close();
  });

  /** One page of the list: its ids and the next part's link, if the answer was cut. */
  async function page(key: string, path: string): Promise<{ ids: string[]; next?: string }> {
    const res = await t.http.get(path).set('x-api-key', key);
    expect(res.status).toBe(200);
    const link = res.headers.link as string | undefined;
    const next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    if (link) expect(next).toBeDefined();
    return { ids: (res.body.data as ApprovalView[]).map((a) => a.id), next };
  }

  /** Every id of the list, following the next links from `path`; also the size of each answer. */
  async function walk(key: string, path: string): Promise<{ ids: string[]; sizes: number[] }> {
    const ids: string[] = [];
    const sizes: number[] = [];
    for (let next: string | undefined = path; next;) {
      const got = await page(key, next);
      ids.push(...got.ids);
      sizes.push(got.ids.length);
      next = got.next;
    }
    return { ids, sizes };
  }

  it('answers at most APPROVAL_LIST_MAX_ITEMS requests, newest first, with a Link to the rest that keeps the filter', async () => {
    const { key } = await createWorkspaceWithKey(t.http);
    const definitionId = await createDefinition(t.http, key, reviewThenPublish('draft'));
    const requests: string[] = [];
    for (let i = 0; i < 7; i++) {
      const runId = await startRun(t.http, key, definitionId, { draft: { n: i } });
      await waitForRun(t.http, key, runId, 'PAUSED');
      const pending = await eventually(
        async () => {
          const res = await t.http.get(`/v1/approval-requests?pending=true`).set('x-api-key', key);
          return (res.body.data as ApprovalView[]).find((a) => a.workflowRunId === runId);
        },
        10_000,
        `the approval request of run ${runId}`,
      );
      requests.push(pending.id);
    }
    const newestFirst = [...requests].reverse();

    const all = await walk(key, '/v1/approval-requests');
    expect(all.sizes).toEqual([3, 3, 1]);
    expect(all.ids).toEqual(newestFirst);

    // Decide two: the filtered lists page on their own and keep the filter in the link.
    for (const id of [requests[1], requests[4]]) {
      await t.http
        .post(`/v1/approval-requests/${id}/decide`)
        .set('x-api-key', key)
        .send({ decision: 'approved' })
        .expect(200);
    }
    const pending = await walk(key, '/v1/approval-requests?pending=true');
    expect(pending.sizes).toEqual([3, 2]);
    expect(pending.ids).toEqual(
      newestFirst.filter((id) => id !== requests[1] && id !== requests[4]),
    );
    const first = await page(key, '/v1/approval-requests?pending=true');
    expect(first.next).toBe(`/v1/approval-requests?pending=true&before=${first.ids[2]}`);
    const decided = await walk(key, '/v1/approval-requests?pending=false');
    expect(decided).toEqual({ ids: [requests[4], requests[1]], sizes: [2] });
  });

  it('pages through requests made at the same moment without skipping or repeating one', async () => {
    // Runs paused together get requests whose created_at differ by microseconds (or not at all):
    // the cursor must compare them exactly.
    const ws = await createWorkspaceWithKey(t.http);
    const definitionId = await createDefinition(t.http, ws.key, reviewThenPublish('draft'));
    const runIds = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        startRun(t.http, ws.key, definitionId, { draft: { i } }),
      ),
    );
    for (const runId of runIds) await waitForRun(t.http, ws.key, runId, 'PAUSED');
    const stored = await eventually(
      async () => {
        const rows = await t.sql<{ id: string }>(
          `SELECT id FROM approval_requests WHERE workspace_id = $1
           ORDER BY created_at DESC, id DESC`,
          [ws.workspace.id],
        );
        return rows.length === runIds.length ? rows.map((r) => r.id) : undefined;
      },
      10_000,
      'every approval request',
    );
    const walked = await walk(ws.key, '/v1/approval-requests');
    expect(walked.ids).toEqual(stored);
    expect(walked.sizes).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
  });

  it("answers 400 naming before for a malformed id, an unknown one and another workspace's", async () => {
    const mine = await createWorkspaceWithKey(t.http);
    const other = await createWorkspaceWithKey(t.http);
    const definitionId = await createDefinition(t.http, other.key, reviewThenPublish('draft'));
    const runId = await startRun(t.http, other.key, definitionId, { draft: { n: 1 } });
    await waitForRun(t.http, other.key, runId, 'PAUSED');
    const [theirs] = (await page(other.key, '/v1/approval-requests')).ids;
    expect(theirs).toBeDefined();
    for (const before of ['nope', '00000000-0000-4000-8000-000000000000', theirs]) {
      const res = await t.http
        .get(`/v1/approval-requests?before=${before}`)
        .set('x-api-key', mine.key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual([
        { field: 'before', message: 'before must be the id of an approval request' },
      ]);
    }
  });
});
