import type { ApprovalDecision, ApprovalRequest, Envelope } from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { ISO_MS } from './support/formats';
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

const ofType = (events: EventView[], type: string) => events.filter((e) => e.eventType === type);

/** A review of `draft` (in the run input) with the policy `policy`, then a step that copies it on. */
const review = (policy: Record<string, unknown> = {}, extra: Step[] = []): Step[] => [
  ...extra,
  { type: 'approval', name: 'review', contentKey: 'draft', prompt: 'Ship it?', ...policy },
  {
    type: 'task',
    name: 'publish',
    handler: 'transform',
    config: { expression: '{ "published": draft }' },
  },
];

/**
 * Approval policies end to end through HTTP (README "Approval policies"): quorum, one rejection
 * rejecting, the same decider twice, concurrent last votes, timeouts with each onTimeout, escalation,
 * the assignee filter and the definitions refused.
 */
describe('approval policies', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    // Two requests an answer, so that the assignee filter is paged through its Link header; a short
    // ceiling on timeouts, so that it can be passed.
    t = await createTestApp({ APPROVAL_LIST_MAX_ITEMS: '2', APPROVAL_MAX_TIMEOUT_MS: '600000' });
    ws = await createWorkspaceWithKey(t.http);
  });

  afterAll(async () => {
    await t.close();
  });

  async function getRequest(id: string, key = ws.key): Promise<ApprovalRequest> {
    const res = await t.http.get(`/v1/approval-requests/${id}`).set('x-api-key', key);
    expect(res.status).toBe(200);
    return (res.body as Envelope<ApprovalRequest>).data;
  }

  /** The ids of the run's approval requests, in the order they were made (from its events). */
  async function requestIds(runId: string, key = ws.key): Promise<string[]> {
    return ofType(await runEvents(t.http, key, runId), 'APPROVAL_REQUESTED').map(
      (e) => e.payload.approvalRequestId as string,
    );
  }

  /** Starts a run of `steps` and returns it with its request once the run is PAUSED on it. */
  async function pausedRun(
    steps: Step[],
    key = ws.key,
  ): Promise<{ runId: string; request: ApprovalRequest }> {
    const definitionId = await createDefinition(t.http, key, steps);
    const runId = await startRun(t.http, key, definitionId, { draft: { title: 'Hello' } });
    await waitForRun(t.http, key, runId, 'PAUSED');
    const [id] = await eventually(
      async () => {
        const ids = await requestIds(runId, key);
        return ids.length > 0 ? ids : undefined;
      },
      10_000,
      `the approval request of run ${runId}`,
    );
    return { runId, request: await getRequest(id, key) };
  }

  /** Starts a run of `steps` and returns its id at once (the timeout tests do not wait for PAUSED). */
  async function run(steps: Step[], key = ws.key): Promise<string> {
    const definitionId = await createDefinition(t.http, key, steps);
    return startRun(t.http, key, definitionId, { draft: { title: 'Hello' } });
  }

  const decide = (id: string, body: Record<string, unknown>, key = ws.key) =>
    t.http.post(`/v1/approval-requests/${id}/decide`).set('x-api-key', key).send(body);

  const list = async (query: string, key = ws.key) => {
    const res = await t.http.get(`/v1/approval-requests${query}`).set('x-api-key', key);
    expect(res.status).toBe(200);
    return {
      ids: (res.body as Envelope<ApprovalRequest[]>).data.map((r) => r.id),
      link: res.headers.link as string | undefined,
    };
  };

  /** Every id the list gives for `query`, following its `Link: rel="next"` parts. */
  async function listAll(query: string, key = ws.key): Promise<string[]> {
    const ids: string[] = [];
    let next: string | undefined = `/v1/approval-requests${query}`;
    for (let part = 0; next && part < 20; part++) {
      const res = await t.http.get(next).set('x-api-key', key);
      expect(res.status).toBe(200);
      ids.push(...(res.body as Envelope<ApprovalRequest[]>).data.map((r) => r.id));
      const link = res.headers.link as string | undefined;
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    }
    return ids;
  }

  async function subscribe(key: string, events: string[]): Promise<void> {
    const res = await t.http
      .post('/v1/webhooks')
      .set('x-api-key', key)
      .send({ url: 'https://127.0.0.1:9/hooks', events });
    expect(res.status).toBe(201);
  }

  /** The run's approval deliveries queued in the outbox; those of one transaction by event type. */
  const outbox = (runId: string) =>
    t.sql<{ event_type: string; body: { data: Record<string, unknown> } }>(
      `SELECT event_type, body FROM webhook_deliveries WHERE run_id = $1 AND event_type LIKE 'approval.%'
       ORDER BY created_at, event_type`,
      [runId],
    );

  describe('quorum', () => {
    it('waits for two distinct approvals, recording the first with its decider, then continues once', async () => {
      const own = await createWorkspaceWithKey(t.http);
      await subscribe(own.key, ['approval.requested', 'approval.decided']);
      const { runId, request } = await pausedRun(
        review({ assignees: ['ann', 'bob', 'cy'], requiredApprovals: 2 }),
        own.key,
      );
      expect(request).toMatchObject({
        assignees: ['ann', 'bob', 'cy'],
        requiredApprovals: 2,
        approvals: [],
        expiresAt: null,
        onTimeout: null,
        decision: null,
      });

      const first = await decide(
        request.id,
        { decision: 'approved', decidedBy: 'ann', comment: 'Fine by me' },
        own.key,
      );
      expect(first.status).toBe(200);
      const partial = (first.body as Envelope<ApprovalDecision>).data;
      expect(partial).toEqual({
        id: request.id,
        workflowRunId: runId,
        stepRunId: request.stepRunId,
        stepName: 'review',
        decision: null,
        decidedBy: null,
        decidedAt: null,
        createdAt: request.createdAt,
        requiredApprovals: 2,
        approvals: [
          {
            decidedBy: 'ann',
            decision: 'approved',
            decidedAt: expect.any(String),
            comment: 'Fine by me',
          },
        ],
      });
      expect(partial.approvals[0].decidedAt).toMatch(ISO_MS);
      // Still waiting: PAUSED, in the pending list with its progress.
      expect((await getRun(t.http, own.key, runId)).status).toBe('PAUSED');
      expect((await list('?pending=true', own.key)).ids).toContain(request.id);
      expect(await getRequest(request.id, own.key)).toMatchObject({
        decision: null,
        approvals: partial.approvals,
      });

      // The same decider again counts once: 409, nothing recorded.
      const again = await decide(request.id, { decision: 'approved', decidedBy: 'ann' }, own.key);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({
        code: 'CONFLICT',
        message:
          'ann has already approved this request (1 of 2 approvals); another decider must approve it',
      });
      expect((await getRequest(request.id, own.key)).approvals).toHaveLength(1);

      const second = await decide(request.id, { decision: 'approved', decidedBy: 'bob' }, own.key);
      expect(second.status).toBe(200);
      const decided = (second.body as Envelope<ApprovalDecision>).data;
      expect(decided).toMatchObject({
        decision: 'approved',
        decidedBy: 'bob',
        requiredApprovals: 2,
      });
      expect(decided.approvals.map((a) => [a.decidedBy, a.decision])).toEqual([
        ['ann', 'approved'],
        ['bob', 'approved'],
      ]);
      expect(decided.approvals[1].decidedAt).toBe(decided.decidedAt);

      const done = await waitForRun(t.http, own.key, runId, 'COMPLETED');
      expect(done.output?.review).toMatchObject({
        decision: 'approved',
        decidedBy: 'bob',
        approvals: decided.approvals,
      });
      expect(done.output?.publish).toEqual({ published: { title: 'Hello' } });
      const events = await runEvents(t.http, own.key, runId);
      expect(ofType(events, 'APPROVAL_VOTE_RECORDED').map((e) => [e.stepRunId, e.payload])).toEqual(
        [
          [
            request.stepRunId,
            {
              stepName: 'review',
              approvalRequestId: request.id,
              decision: 'approved',
              decidedBy: 'ann',
              comment: 'Fine by me',
              approvals: 1,
              requiredApprovals: 2,
            },
          ],
        ],
      );
      expect(ofType(events, 'APPROVAL_DECIDED').map((e) => e.payload)).toEqual([
        {
          stepName: 'review',
          approvalRequestId: request.id,
          decision: 'approved',
          decidedBy: 'bob',
          comment: null,
        },
      ]);
      expect(ofType(events, 'APPROVAL_REQUESTED')[0].payload).toMatchObject({
        assignees: ['ann', 'bob', 'cy'],
        requiredApprovals: 2,
        expiresAt: null,
      });
      // One approval.decided delivery: for the decision, none for the partial approval.
      expect((await outbox(runId)).map((d) => d.event_type)).toEqual([
        'approval.requested',
        'approval.decided',
      ]);
    });

    it('rejects at once on one rejection, even after an approval', async () => {
      const { runId, request } = await pausedRun(
        review({ assignees: ['ann', 'bob'], requiredApprovals: 2 }),
      );
      expect((await decide(request.id, { decision: 'approved', decidedBy: 'ann' })).status).toBe(
        200,
      );
      const rejected = await decide(request.id, {
        decision: 'rejected',
        decidedBy: 'bob',
        comment: 'Wrong title',
      });
      expect(rejected.status).toBe(200);
      expect(rejected.body.data).toMatchObject({ decision: 'rejected', decidedBy: 'bob' });
      const failed = await waitForRun(t.http, ws.key, runId, 'FAILED');
      expect(failed.error).toBe('rejected by bob: Wrong title');
      expect(
        (await getRequest(request.id)).approvals.map((a) => [a.decidedBy, a.decision]),
      ).toEqual([
        ['ann', 'approved'],
        ['bob', 'rejected'],
      ]);
      // Decided: a late approval is refused like any decision on a decided request.
      const late = await decide(request.id, { decision: 'approved', decidedBy: 'cy' });
      expect(late.status).toBe(409);
      expect(late.body.error.message).toBe('approval request was already decided (rejected)');
    });

    it('refuses an edit of a request that needs several approvals, and records nothing', async () => {
      const { runId, request } = await pausedRun(review({ requiredApprovals: 2 }));
      const res = await decide(request.id, { decision: 'edited', editedContent: { title: 'X' } });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toBe(
        'this request needs 2 approvals, so it cannot be edited: approve it as it is, or reject ' +
          'it with a comment',
      );
      expect(await getRequest(request.id)).toMatchObject({ decision: null, approvals: [] });
      expect((await getRun(t.http, ws.key, runId)).status).toBe('PAUSED');
    });

    it('completes the request exactly once when two approvals race for the last vote', async () => {
      for (let round = 0; round < 3; round++) {
        const { runId, request } = await pausedRun(review({ requiredApprovals: 2 }));
        expect((await decide(request.id, { decision: 'approved', decidedBy: 'ann' })).status).toBe(
          200,
        );
        const answers = await Promise.all([
          decide(request.id, { decision: 'approved', decidedBy: 'bob' }),
          decide(request.id, { decision: 'approved', decidedBy: 'cy' }),
        ]);
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        const winner = answers.find((a) => a.status === 200)!.body.data as ApprovalDecision;
        const loser = answers.find((a) => a.status === 409)!;
        expect(winner.decision).toBe('approved');
        expect(loser.body.error.message).toBe('approval request was already decided (approved)');
        await waitForRun(t.http, ws.key, runId, 'COMPLETED');
        const events = await runEvents(t.http, ws.key, runId);
        expect(ofType(events, 'APPROVAL_DECIDED').map((e) => e.payload.decidedBy)).toEqual([
          winner.decidedBy,
        ]);
        expect(
          ofType(events, 'STEP_COMPLETED').filter((e) => e.payload.stepName === 'review'),
        ).toHaveLength(1);
        expect(ofType(events, 'WORKFLOW_COMPLETED')).toHaveLength(1);
        expect((await getRequest(request.id)).approvals.map((a) => a.decidedBy)).toEqual([
          'ann',
          winner.decidedBy,
        ]);
      }
    });

    it('gives one outcome to a rejection racing an approval for the last vote', async () => {
      for (let round = 0; round < 3; round++) {
        const { runId, request } = await pausedRun(review({ requiredApprovals: 2 }));
        expect((await decide(request.id, { decision: 'approved', decidedBy: 'ann' })).status).toBe(
          200,
        );
        const [approve, reject] = await Promise.all([
          decide(request.id, { decision: 'approved', decidedBy: 'bob' }),
          decide(request.id, { decision: 'rejected', decidedBy: 'cy' }),
        ]);
        expect([approve.status, reject.status].sort()).toEqual([200, 409]);
        const outcome = approve.status === 200 ? 'approved' : 'rejected';
        expect((approve.status === 200 ? approve : reject).body.data.decision).toBe(outcome);
        expect((approve.status === 409 ? approve : reject).body.error.message).toBe(
          `approval request was already decided (${outcome})`,
        );
        const final = await waitForRun(
          t.http,
          ws.key,
          runId,
          outcome === 'approved' ? 'COMPLETED' : 'FAILED',
        );
        expect(final.status).toBe(outcome === 'approved' ? 'COMPLETED' : 'FAILED');
        const events = await runEvents(t.http, ws.key, runId);
        expect(ofType(events, 'APPROVAL_DECIDED').map((e) => e.payload.decision)).toEqual([
          outcome,
        ]);
        expect((await getRequest(request.id)).decision).toBe(outcome);
      }
    });

    it('keeps the single-approver behaviour without a policy: the first decision decides', async () => {
      const { runId, request } = await pausedRun(review());
      const res = await decide(request.id, { decision: 'approved', decidedBy: 'ann' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ decision: 'approved', decidedBy: 'ann' });
      await waitForRun(t.http, ws.key, runId, 'COMPLETED');
      const events = await runEvents(t.http, ws.key, runId);
      expect(ofType(events, 'APPROVAL_VOTE_RECORDED')).toEqual([]);
      // Without a policy the request event says nothing of one, as before.
      expect(ofType(events, 'APPROVAL_REQUESTED')[0].payload).toEqual({
        stepName: 'review',
        approvalRequestId: request.id,
        contentKey: 'draft',
        prompt: 'Ship it?',
      });
    });
  });

  describe('timeouts', () => {
    it('rejects an undecided request at its timeout by default, the run failing with a clear message', async () => {
      const runId = await run(
        review({ assignees: ['ann', 'bob'], requiredApprovals: 2, timeoutMs: 200 }),
      );
      const failed = await waitForRun(t.http, ws.key, runId, 'FAILED');
      expect(failed.error).toBe(
        'the approval request expired without a decision (0 of 2 approvals; onTimeout: reject)',
      );
      const [id] = await requestIds(runId);
      const request = await getRequest(id);
      expect(request).toMatchObject({
        decision: 'rejected',
        decidedBy: 'system:timeout',
        onTimeout: 'reject',
        approvals: [],
        escalatedAt: null,
      });
      expect(request.expiredAt).toMatch(ISO_MS);
      expect(request.decidedAt).toBe(request.expiredAt);
      // It expired once its expiry had come (the claim compares the due time with the database's clock).
      expect(Date.parse(request.expiredAt!)).toBeGreaterThanOrEqual(Date.parse(request.expiresAt!));
      const events = await runEvents(t.http, ws.key, runId);
      expect(ofType(events, 'APPROVAL_REQUESTED')[0].payload).toMatchObject({
        assignees: ['ann', 'bob'],
        requiredApprovals: 2,
        expiresAt: request.expiresAt,
      });
      const types = events.map((e) => e.eventType);
      expect(types.slice(types.indexOf('APPROVAL_REQUESTED'))).toEqual([
        'APPROVAL_REQUESTED',
        'APPROVAL_EXPIRED',
        'APPROVAL_DECIDED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      expect(ofType(events, 'APPROVAL_EXPIRED')[0].payload).toEqual({
        stepName: 'review',
        approvalRequestId: id,
        onTimeout: 'reject',
        approvals: 0,
        requiredApprovals: 2,
        expiresAt: request.expiresAt,
      });
      expect(ofType(events, 'APPROVAL_DECIDED')[0].payload).toEqual({
        stepName: 'review',
        approvalRequestId: id,
        decision: 'rejected',
        decidedBy: 'system:timeout',
        comment: null,
      });
      // Decided by its timeout: no longer pending, and no reviewer can decide it any more.
      expect((await list('?pending=true')).ids).not.toContain(id);
      expect((await decide(id, { decision: 'approved' })).status).toBe(409);
    });

    it('regenerates after a timeout rejection while the retry policy allows, with the rejection in the state', async () => {
      const runId = await run(
        review({ timeoutMs: 150, onTimeout: 'reject', retry: { maxAttempts: 2 } }, [
          {
            type: 'task',
            name: 'write',
            handler: 'transform',
            config: { expression: '{ "attempt": $attempt, "after": rejection }' },
          },
        ]),
      );
      const failed = await waitForRun(t.http, ws.key, runId, 'FAILED');
      expect(failed.error).toBe(
        'the approval request expired without a decision (0 of 1 approvals; onTimeout: reject)',
      );
      const ids = await requestIds(runId);
      expect(ids).toHaveLength(2);
      for (const id of ids) {
        expect(await getRequest(id)).toMatchObject({
          decision: 'rejected',
          decidedBy: 'system:timeout',
        });
      }
      // The second draft was written with the first expiry's rejection in the state.
      const second = await getRequest(ids[1]);
      expect(second.content).toEqual({ title: 'Hello' });
      const steps = await t.http.get(`/v1/workflow-runs/${runId}/steps`).set('x-api-key', ws.key);
      const writes = (steps.body.data as Array<{ stepName: string; output: unknown }>).filter(
        (s) => s.stepName === 'write',
      );
      expect(writes.map((w) => w.output)).toEqual([
        { attempt: 1 },
        { attempt: 1, after: { decision: 'rejected', comment: null, expired: true } },
      ]);
    });

    it('approves an undecided request at its timeout with onTimeout approve, and the run continues', async () => {
      const runId = await run(review({ timeoutMs: 200, onTimeout: 'approve' }));
      const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
      const [id] = await requestIds(runId);
      expect(done.output?.review).toEqual({
        decision: 'approved',
        approvalRequestId: id,
        decidedBy: 'system:timeout',
        comment: null,
        approvals: [],
        expired: true,
        content: { title: 'Hello' },
      });
      expect(done.output?.publish).toEqual({ published: { title: 'Hello' } });
      expect(await getRequest(id)).toMatchObject({
        decision: 'approved',
        decidedBy: 'system:timeout',
        onTimeout: 'approve',
      });
      const types = (await runEvents(t.http, ws.key, runId)).map((e) => e.eventType);
      expect(
        types.slice(types.indexOf('APPROVAL_REQUESTED'), types.indexOf('STEP_COMPLETED') + 1),
      ).toEqual(['APPROVAL_REQUESTED', 'APPROVAL_EXPIRED', 'APPROVAL_DECIDED', 'STEP_COMPLETED']);
    });

    it('fails the step and the run at the timeout with onTimeout fail, leaving the request undecided', async () => {
      const runId = await run(review({ requiredApprovals: 2, timeoutMs: 200, onTimeout: 'fail' }));
      // A first approval before the timeout shows in the failure's count.
      const [id] = await eventually(
        async () => {
          const ids = await requestIds(runId);
          return ids.length > 0 ? ids : undefined;
        },
        10_000,
        'the request',
      );
      const first = await decide(id, { decision: 'approved', decidedBy: 'ann' });
      const failed = await waitForRun(t.http, ws.key, runId, 'FAILED');
      // The approval went in before the timeout, or came too late (409): the count says which.
      const counted = first.status === 200 ? 1 : 0;
      expect(failed.error).toBe(
        `the approval request expired without a decision (${counted} of 2 approvals; onTimeout: fail)`,
      );
      const request = await getRequest(id);
      expect(request).toMatchObject({ decision: null, decidedBy: null, onTimeout: 'fail' });
      expect(request.expiredAt).toMatch(ISO_MS);
      const events = await runEvents(t.http, ws.key, runId);
      const types = events.map((e) => e.eventType);
      expect(types.slice(types.indexOf('APPROVAL_EXPIRED'))).toEqual([
        'APPROVAL_EXPIRED',
        'STEP_FAILED',
        'WORKFLOW_FAILED',
      ]);
      expect(ofType(events, 'APPROVAL_DECIDED')).toEqual([]);
      expect((await decide(id, { decision: 'approved', decidedBy: 'bob' })).status).toBe(409);
    });

    it('escalates at the first timeout and applies onTimeout at the second', async () => {
      const own = await createWorkspaceWithKey(t.http);
      await subscribe(own.key, ['approval.escalated', 'approval.expired', 'approval.decided']);
      const runId = await run(
        review({
          assignees: ['ann'],
          timeoutMs: 150,
          onTimeout: 'approve',
          escalateTo: { assignees: ['boss', 'deputy'], timeoutMs: 300 },
        }),
        own.key,
      );
      const done = await waitForRun(t.http, own.key, runId, 'COMPLETED');
      const [id] = await requestIds(runId, own.key);
      const request = await getRequest(id, own.key);
      expect(request).toMatchObject({
        assignees: ['boss', 'deputy'],
        escalatedFrom: ['ann'],
        decision: 'approved',
        decidedBy: 'system:timeout',
      });
      expect(done.output?.review).toMatchObject({ decision: 'approved', expired: true });
      const events = await runEvents(t.http, own.key, runId);
      // The second expiry counts from the escalation, which came at the first one.
      const firstExpiry = ofType(events, 'APPROVAL_REQUESTED')[0].payload.expiresAt as string;
      expect(Date.parse(request.expiresAt!) - Date.parse(firstExpiry)).toBeGreaterThanOrEqual(300);
      expect(Date.parse(request.escalatedAt!)).toBeGreaterThanOrEqual(Date.parse(firstExpiry));
      const types = events.map((e) => e.eventType);
      expect(
        types.slice(types.indexOf('APPROVAL_REQUESTED'), types.indexOf('STEP_COMPLETED') + 1),
      ).toEqual([
        'APPROVAL_REQUESTED',
        'APPROVAL_ESCALATED',
        'APPROVAL_EXPIRED',
        'APPROVAL_DECIDED',
        'STEP_COMPLETED',
      ]);
      expect(ofType(events, 'APPROVAL_ESCALATED')[0].payload).toEqual({
        stepName: 'review',
        approvalRequestId: id,
        assignees: ['boss', 'deputy'],
        escalatedFrom: ['ann'],
        expiresAt: request.expiresAt,
      });
      expect((await outbox(runId)).map((d) => [d.event_type, d.body.data])).toEqual([
        [
          'approval.escalated',
          {
            approvalRequestId: id,
            stepName: 'review',
            assignees: ['boss', 'deputy'],
            escalatedFrom: ['ann'],
            escalatedAt: request.escalatedAt,
            expiresAt: request.expiresAt,
          },
        ],
        [
          'approval.decided',
          {
            approvalRequestId: id,
            stepName: 'review',
            decision: 'approved',
            decidedBy: 'system:timeout',
            decidedAt: request.decidedAt,
          },
        ],
        [
          'approval.expired',
          {
            approvalRequestId: id,
            stepName: 'review',
            onTimeout: 'approve',
            assignees: ['boss', 'deputy'],
            approvals: [],
            requiredApprovals: 1,
            expiresAt: request.expiresAt,
            expiredAt: request.expiredAt,
          },
        ],
      ]);
    });

    it("waits without a second timeout after an escalation, in the escalated assignees' inbox, until decided", async () => {
      const own = await createWorkspaceWithKey(t.http);
      const before = await pausedRun(review({ assignees: ['boss'] }), own.key);
      const runId = await run(
        review({
          assignees: ['ann', 'bob'],
          requiredApprovals: 2,
          timeoutMs: 150,
          escalateTo: { assignees: ['boss', 'deputy'] },
        }),
        own.key,
      );
      const [id] = await eventually(
        async () => {
          const ids = await requestIds(runId, own.key);
          return ids.length > 0 ? ids : undefined;
        },
        10_000,
        'the request',
      );
      const escalated = await eventually(
        async () => {
          const r = await getRequest(id, own.key);
          return r.escalatedAt !== null ? r : undefined;
        },
        10_000,
        'the escalation',
      );
      expect(escalated).toMatchObject({
        assignees: ['boss', 'deputy'],
        escalatedFrom: ['ann', 'bob'],
        expiresAt: null,
        decision: null,
      });
      expect((await getRun(t.http, own.key, runId)).status).toBe('PAUSED');
      // The filter follows the escalation: the request left the first assignees' inbox, and is
      // paged through in its place among the others (two an answer, its own id a cursor).
      const after = await pausedRun(review({ assignees: ['boss'] }), own.key);
      expect(await listAll('?pending=true&assignee=boss', own.key)).toEqual([
        after.request.id,
        id,
        before.request.id,
      ]);
      expect(await listAll('?pending=true&assignee=boss&order=oldest', own.key)).toEqual([
        before.request.id,
        id,
        after.request.id,
      ]);
      expect((await list('?pending=true&assignee=ann', own.key)).ids).toEqual([]);
      expect((await decide(id, { decision: 'approved', decidedBy: 'boss' }, own.key)).status).toBe(
        200,
      );
      expect(
        (await decide(id, { decision: 'approved', decidedBy: 'deputy' }, own.key)).body.data,
      ).toMatchObject({ decision: 'approved' });
      await waitForRun(t.http, own.key, runId, 'COMPLETED');
      const types = (await runEvents(t.http, own.key, runId)).map((e) => e.eventType);
      expect(types).not.toContain('APPROVAL_EXPIRED');
      expect((await list('?pending=false&assignee=boss', own.key)).ids).toEqual([id]);
      expect((await list('?pending=false&assignee=deputy', own.key)).ids).toEqual([id]);
    });

    it('ends a timer with the run: a cancelled run does not expire its request', async () => {
      const { runId, request } = await pausedRun(review({ timeoutMs: 600_000 }));
      const cancelled = await t.http
        .post(`/v1/workflow-runs/${runId}/cancel`)
        .set('x-api-key', ws.key);
      expect(cancelled.status).toBe(200);
      const steps = await t.sql<{ status: string; due_at: Date | null }>(
        'SELECT status, due_at FROM step_runs WHERE id = $1',
        [request.stepRunId],
      );
      expect(steps).toEqual([{ status: 'CANCELLED', due_at: null }]);
      expect(await getRequest(request.id)).toMatchObject({ decision: null, expiredAt: null });
    });
  });

  describe('assignee filter', () => {
    it('lists the requests of one assignee, with the pending filter, both orders and their cursors', async () => {
      const own = await createWorkspaceWithKey(t.http);
      const other = await createWorkspaceWithKey(t.http);
      const made: Array<{ id: string; assignees: string[] }> = [];
      for (const assignees of [['ann'], ['bob'], ['ann', 'bob'], ['ann'], ['cy'], ['ann']]) {
        const { request } = await pausedRun(review({ assignees }), own.key);
        made.push({ id: request.id, assignees });
      }
      // Another workspace's request for "ann" is never listed.
      const foreign = await pausedRun(review({ assignees: ['ann'] }), other.key);
      const forAnn = made.filter((r) => r.assignees.includes('ann')).map((r) => r.id);
      expect(forAnn).toHaveLength(4);

      // Two an answer: the Link header keeps the assignee and pages on.
      const firstPart = await list('?assignee=ann', own.key);
      expect(firstPart.ids).toEqual([forAnn[3], forAnn[2]]);
      expect(firstPart.link).toBe(
        `</v1/approval-requests?assignee=ann&before=${forAnn[2]}>; rel="next"`,
      );
      expect(await listAll('?assignee=ann', own.key)).toEqual([...forAnn].reverse());
      expect(await listAll('?assignee=ann&order=oldest', own.key)).toEqual(forAnn);
      expect(await listAll('?assignee=ann&pending=true&order=oldest', own.key)).toEqual(forAnn);
      expect(await listAll('?assignee=nobody', own.key)).toEqual([]);
      expect(await listAll('?assignee=ann', other.key)).toEqual([foreign.request.id]);

      // Decided requests move from the pending part to the decided one.
      expect((await decide(forAnn[1], { decision: 'approved' }, own.key)).status).toBe(200);
      expect(await listAll('?assignee=ann&pending=true', own.key)).toEqual([
        forAnn[3],
        forAnn[2],
        forAnn[0],
      ]);
      expect(await listAll('?assignee=ann&pending=false', own.key)).toEqual([forAnn[1]]);
      expect(await listAll('?assignee=bob&pending=true', own.key)).toEqual([made[1].id]);
      expect(await listAll('?assignee=bob&pending=false', own.key)).toEqual([made[2].id]);
      // Names are matched exactly.
      expect(await listAll('?assignee=Ann', own.key)).toEqual([]);
    });

    it('answers 400 naming assignee for an empty, too long or repeated value', async () => {
      for (const query of [
        '?assignee=',
        `?assignee=${'a'.repeat(201)}`,
        '?assignee=ann&assignee=bob',
      ]) {
        const res = await t.http.get(`/v1/approval-requests${query}`).set('x-api-key', ws.key);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        const fields = res.body.error.details.errors.map((e: { field: string }) => e.field);
        expect([...new Set(fields)]).toEqual(['assignee']);
      }
    });
  });

  describe('bad input', () => {
    const approval = (policy: Record<string, unknown>) => [
      { type: 'approval', name: 'review', contentKey: 'draft', ...policy },
    ];

    it.each<[string, Record<string, unknown>, string, string | RegExp]>([
      [
        'a quorum larger than the assignees',
        { assignees: ['ann', 'bob'], requiredApprovals: 3 },
        'steps[0].requiredApprovals',
        'must not be greater than the number of assignees (2)',
      ],
      [
        'a quorum of 0',
        { requiredApprovals: 0 },
        'steps[0].requiredApprovals',
        /not be less than 1/,
      ],
      ['a fractional quorum', { requiredApprovals: 1.5 }, 'steps[0].requiredApprovals', /integer/],
      ['a quorum as a string', { requiredApprovals: '2' }, 'steps[0].requiredApprovals', /integer/],
      ['a quorum over 50', { requiredApprovals: 51 }, 'steps[0].requiredApprovals', /50/],
      ['assignees that are not a list', { assignees: 'ann' }, 'steps[0].assignees', /array/],
      ['no assignees', { assignees: [] }, 'steps[0].assignees', /at least one assignee/],
      ['an empty assignee', { assignees: [''] }, 'steps[0].assignees', /1-200 characters/],
      ['an assignee twice', { assignees: ['ann', 'ann'] }, 'steps[0].assignees', /twice/],
      ['an assignee that is not a string', { assignees: [7] }, 'steps[0].assignees', /strings/],
      [
        'more than 50 assignees',
        { assignees: Array.from({ length: 51 }, (_, i) => `a${i}`) },
        'steps[0].assignees',
        /at most 50/,
      ],
      ['a zero timeout', { timeoutMs: 0 }, 'steps[0].timeoutMs', /not be less than 1/],
      ['a negative timeout', { timeoutMs: -5 }, 'steps[0].timeoutMs', /not be less than 1/],
      ['a fractional timeout', { timeoutMs: 1.5 }, 'steps[0].timeoutMs', /integer/],
      ['an absurd timeout', { timeoutMs: 1e20 }, 'steps[0].timeoutMs', /greater than/],
      [
        'a timeout over APPROVAL_MAX_TIMEOUT_MS',
        { timeoutMs: 600_001 },
        'steps[0].timeoutMs',
        'must not be greater than 600000 (APPROVAL_MAX_TIMEOUT_MS)',
      ],
      [
        'an unknown onTimeout',
        { timeoutMs: 1000, onTimeout: 'ignore' },
        'steps[0].onTimeout',
        /one of reject, approve, fail/,
      ],
      [
        'onTimeout without a timeout',
        { onTimeout: 'approve' },
        'steps[0].onTimeout',
        /needs timeoutMs/,
      ],
      [
        'escalateTo without a timeout',
        { escalateTo: { assignees: ['boss'] } },
        'steps[0].escalateTo',
        /needs timeoutMs/,
      ],
      [
        'escalateTo that is not an object',
        { timeoutMs: 1000, escalateTo: 'boss' },
        'steps[0].escalateTo',
        /object/,
      ],
      [
        'escalateTo without assignees',
        { timeoutMs: 1000, escalateTo: {} },
        'steps[0].escalateTo.assignees',
        /array/,
      ],
      [
        'a negative escalation timeout',
        { timeoutMs: 1000, escalateTo: { assignees: ['boss'], timeoutMs: -1 } },
        'steps[0].escalateTo.timeoutMs',
        /not be less than 1/,
      ],
      [
        'an escalation timeout over APPROVAL_MAX_TIMEOUT_MS',
        { timeoutMs: 1000, escalateTo: { assignees: ['boss'], timeoutMs: 700_000 } },
        'steps[0].escalateTo.timeoutMs',
        'must not be greater than 600000 (APPROVAL_MAX_TIMEOUT_MS)',
      ],
      [
        'an unknown escalateTo field',
        { timeoutMs: 1000, escalateTo: { assignees: ['boss'], notify: true } },
        'steps[0].escalateTo.notify',
        'is not allowed',
      ],
      [
        'escalated assignees fewer than the quorum',
        { requiredApprovals: 2, timeoutMs: 1000, escalateTo: { assignees: ['boss'] } },
        'steps[0].escalateTo.assignees',
        /at least requiredApprovals \(2\)/,
      ],
    ])(
      'refuses %s with 400 naming the field, and creates nothing',
      async (_, policy, field, message) => {
        const before = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
        const res = await t.http
          .post('/v1/workflow-definitions')
          .set('x-api-key', ws.key)
          .send({ name: 'bad-policy', version: '1', steps: approval(policy) });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        const errors = res.body.error.details.errors as Array<{ field: string; message: string }>;
        const named = errors.filter((e) => e.field === field);
        expect(named.length).toBeGreaterThan(0);
        if (typeof message === 'string') expect(named.map((e) => e.message)).toContain(message);
        else expect(named.some((e) => message.test(e.message))).toBe(true);
        const after = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
        expect(after.body.data).toHaveLength(before.body.data.length);
      },
    );

    it('accepts a timeout up to APPROVAL_MAX_TIMEOUT_MS and a quorum equal to the assignees', async () => {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({
          name: 'good-policy',
          version: '1',
          steps: approval({
            assignees: ['ann', 'bob'],
            requiredApprovals: 2,
            timeoutMs: 600_000,
            onTimeout: 'fail',
            escalateTo: { assignees: ['boss', 'deputy'], timeoutMs: 600_000 },
          }),
        });
      expect(res.status).toBe(201);
    });
  });
});
