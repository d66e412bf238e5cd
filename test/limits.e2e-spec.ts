import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { createDefinition, getRun, startRun, waitForRun, type Step } from './support/workflows';

/**
 * Storage limits (README "Limits on stored data"): every limit with a value just at it (accepted) and
 * one byte over (refused: the status, the field and the limit named, nothing written). Small limits
 * are configured here so that the bodies stay small.
 */
const LIMITS = {
  MAX_DEFINITIONS_PER_WORKSPACE: 3,
  MAX_DEFINITION_BYTES: 4096,
  MAX_RUN_INPUT_BYTES: 2048,
  MAX_SIGNAL_PAYLOAD_BYTES: 1024,
  MAX_APPROVAL_CONTENT_BYTES: 1500,
  MAX_PENDING_APPROVALS_PER_WORKSPACE: 2,
};

/**
 * An object whose JSON is exactly `bytes` UTF-8 bytes, padded with `unit` (one character of 1 to 4
 * bytes; the remainder is made up with ASCII), around `base`.
 */
function sized(
  bytes: number,
  unit = 'x',
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  const empty = size({ ...base, pad: '' });
  const unitBytes = Buffer.byteLength(unit);
  const units = Math.floor((bytes - empty) / unitBytes);
  const value = {
    ...base,
    pad: unit.repeat(units) + 'x'.repeat(bytes - empty - units * unitBytes),
  };
  if (size(value) !== bytes) throw new Error(`sized(): ${size(value)} bytes instead of ${bytes}`);
  return value;
}

/** Steps whose JSON is exactly `bytes` bytes: one noop task carrying the padding in its config. */
function stepsOf(bytes: number, unit = 'x'): Step[] {
  const overhead = Buffer.byteLength(
    JSON.stringify([{ type: 'task', name: 's', handler: 'noop', config: {} }]),
  );
  return [{ type: 'task', name: 's', handler: 'noop', config: sized(bytes - overhead + 2, unit) }];
}

const PAD_UNITS = ['x', 'é', '日', '🙂'];

describe('storage limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, String(v)])),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const uniqueName = () => `wf-${randomBytes(4).toString('hex')}`;

  async function count(table: string, workspaceId: string): Promise<number> {
    const [row] = await t.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`,
      [workspaceId],
    );
    return row.n;
  }

  function expectLimit(
    res: Response,
    status: number,
    field: string,
    limit: keyof typeof LIMITS,
  ): void {
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'CONFLICT');
    expect(res.body.error.message).toContain(field);
    expect(res.body.error.message).toContain(limit);
    expect(res.body.error.details).toEqual({
      errors: [{ field, message: expect.stringContaining(limit) }],
      limit: { name: limit, value: LIMITS[limit] },
    });
  }

  describe('definition size (MAX_DEFINITION_BYTES)', () => {
    let ws: WorkspaceWithKey;
    beforeAll(async () => {
      ws = await createWorkspaceWithKey(t.http);
    });

    it.each(PAD_UNITS)(
      'counts the UTF-8 bytes of the steps: at the limit 201, one byte over 413 (padding %s)',
      async (unit) => {
        const post = (steps: Step[]) =>
          t.http
            .post('/v1/workflow-definitions')
            .set('x-api-key', ws.key)
            .send({ name: uniqueName(), version: '1', steps });
        const before = await count('workflow_definitions', ws.workspace.id);
        const over = await post(stepsOf(LIMITS.MAX_DEFINITION_BYTES + 1, unit));
        expectLimit(over, 413, 'steps', 'MAX_DEFINITION_BYTES');
        expect(await count('workflow_definitions', ws.workspace.id)).toBe(before);
        const at = await post(stepsOf(LIMITS.MAX_DEFINITION_BYTES, unit));
        expect(at.status).toBe(201);
        // The definitions count limit is small: make room for the next payload.
        await t.sql('DELETE FROM workflow_definitions WHERE workspace_id = $1', [ws.workspace.id]);
      },
    );

    it('measures the steps before validating them: an oversized definition is 413 even when its steps are invalid', async () => {
      // Validation compiles expressions and patterns; its work is bounded by this limit, not by the
      // 1 MiB body limit.
      const pattern = 'a{1000}'.repeat(10);
      const steps = Array.from({ length: 20 }, (_, i) => ({
        type: 'llm',
        name: `s${i}`,
        model: 'openai:gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        guardrails: { blockedPatterns: [pattern, pattern, pattern] },
      }));
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', ws.key)
        .send({ name: uniqueName(), version: '1', steps });
      expectLimit(res, 413, 'steps', 'MAX_DEFINITION_BYTES');
    });
  });

  describe('definitions per workspace (MAX_DEFINITIONS_PER_WORKSPACE)', () => {
    it('refuses the one past the limit with 409, every version counting, and the list stays as it was', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const name = uniqueName();
      for (let v = 1; v <= LIMITS.MAX_DEFINITIONS_PER_WORKSPACE; v++) {
        const res = await t.http
          .post('/v1/workflow-definitions')
          .set('x-api-key', ws.key)
          .send({
            name,
            version: String(v),
            steps: [{ type: 'task', name: 's', handler: 'noop' }],
          });
        expect(res.status).toBe(201);
      }
      const list = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      for (const body of [
        { name, version: 'next', steps: [{ type: 'task', name: 's', handler: 'noop' }] },
        { name: uniqueName(), version: '1', steps: [{ type: 'wait', name: 'w' }] },
      ]) {
        const res = await t.http
          .post('/v1/workflow-definitions')
          .set('x-api-key', ws.key)
          .send(body);
        expectLimit(res, 409, 'body', 'MAX_DEFINITIONS_PER_WORKSPACE');
      }
      const after = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      expect(after.body.data).toEqual(list.body.data);
      // Another workspace is not affected.
      const other = await createWorkspaceWithKey(t.http);
      await createDefinition(t.http, other.key, [{ type: 'task', name: 's', handler: 'noop' }]);
    });

    it('holds under concurrent creations: exactly the limit succeeds', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.http
            .post('/v1/workflow-definitions')
            .set('x-api-key', ws.key)
            .send({
              name: uniqueName(),
              version: '1',
              steps: [{ type: 'task', name: 's', handler: 'noop' }],
            }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(LIMITS.MAX_DEFINITIONS_PER_WORKSPACE);
      expect(statuses.filter((s) => s === 409)).toHaveLength(
        8 - LIMITS.MAX_DEFINITIONS_PER_WORKSPACE,
      );
      expect(await count('workflow_definitions', ws.workspace.id)).toBe(
        LIMITS.MAX_DEFINITIONS_PER_WORKSPACE,
      );
    });
  });

  describe('run input (MAX_RUN_INPUT_BYTES)', () => {
    let ws: WorkspaceWithKey;
    let definitionId: string;
    beforeAll(async () => {
      ws = await createWorkspaceWithKey(t.http);
      definitionId = await createDefinition(t.http, ws.key, [{ type: 'wait', name: 'hold' }]);
    });

    it.each(PAD_UNITS)(
      'at the limit 201 with the input kept, one byte over 413 and no run (padding %s)',
      async (unit) => {
        const post = (input: Record<string, unknown>) =>
          t.http.post('/v1/workflow-runs').set('x-api-key', ws.key).send({ definitionId, input });
        const runs = await t.http.get('/v1/workflow-runs').set('x-api-key', ws.key);
        const over = await post(sized(LIMITS.MAX_RUN_INPUT_BYTES + 1, unit, { nested: { a: 1 } }));
        expectLimit(over, 413, 'input', 'MAX_RUN_INPUT_BYTES');
        const after = await t.http.get('/v1/workflow-runs').set('x-api-key', ws.key);
        expect(after.body.meta.total).toBe(runs.body.meta.total);
        const input = sized(LIMITS.MAX_RUN_INPUT_BYTES, unit, { nested: { a: 1 } });
        const at = await post(input);
        expect(at.status).toBe(201);
        expect(at.body.data.input).toEqual(input);
      },
    );

    it('counts an idempotent replay against the limit too (nothing is written)', async () => {
      const res = await t.http
        .post('/v1/workflow-runs')
        .set('x-api-key', ws.key)
        .send({
          definitionId,
          input: sized(LIMITS.MAX_RUN_INPUT_BYTES * 2),
          idempotencyKey: 'big',
        });
      expectLimit(res, 413, 'input', 'MAX_RUN_INPUT_BYTES');
      const rows = await t.sql('SELECT 1 FROM workflow_runs WHERE idempotency_key = $1', ['big']);
      expect(rows).toHaveLength(0);
    });
  });

  describe('resume payload (MAX_SIGNAL_PAYLOAD_BYTES)', () => {
    it.each(PAD_UNITS)(
      'over the limit 413 and the run keeps waiting; at the limit the run resumes (padding %s)',
      async (unit) => {
        const ws = await createWorkspaceWithKey(t.http);
        const definitionId = await createDefinition(t.http, ws.key, [
          { type: 'external_event', name: 'paid', signalType: 'payment' },
        ]);
        const runId = await startRun(t.http, ws.key, definitionId);
        await waitForRun(t.http, ws.key, runId, 'WAITING');
        const resume = (payload: Record<string, unknown>) =>
          t.http
            .post(`/v1/workflow-runs/${runId}/resume`)
            .set('x-api-key', ws.key)
            .send({ signalType: 'payment', payload });
        const events = await t.sql('SELECT 1 FROM run_events WHERE run_id = $1', [runId]);
        expectLimit(
          await resume(sized(LIMITS.MAX_SIGNAL_PAYLOAD_BYTES + 1, unit)),
          413,
          'payload',
          'MAX_SIGNAL_PAYLOAD_BYTES',
        );
        expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');
        expect(await t.sql('SELECT 1 FROM run_events WHERE run_id = $1', [runId])).toHaveLength(
          events.length,
        );
        const payload = sized(LIMITS.MAX_SIGNAL_PAYLOAD_BYTES, unit);
        expect((await resume(payload)).status).toBe(200);
        const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
        expect((done.output as { paid: { payload: unknown } }).paid.payload).toEqual(payload);
      },
    );
  });

  describe('approval content (MAX_APPROVAL_CONTENT_BYTES)', () => {
    const review: Step[] = [{ type: 'approval', name: 'review', contentKey: 'doc' }];

    it.each(PAD_UNITS)(
      'content one byte over fails the step once, without a request; at the limit the run pauses (padding %s)',
      async (unit) => {
        const ws = await createWorkspaceWithKey(t.http);
        const definitionId = await createDefinition(t.http, ws.key, review);
        const big = await startRun(t.http, ws.key, definitionId, {
          doc: sized(LIMITS.MAX_APPROVAL_CONTENT_BYTES + 1, unit),
        });
        const failed = await waitForRun(t.http, ws.key, big, 'FAILED');
        expect(failed.error).toContain('MAX_APPROVAL_CONTENT_BYTES');
        expect(failed.error).toContain('"doc"');
        const steps = await t.http.get(`/v1/workflow-runs/${big}/steps`).set('x-api-key', ws.key);
        expect(steps.body.data).toHaveLength(1);
        expect(await count('approval_requests', ws.workspace.id)).toBe(0);

        const content = sized(LIMITS.MAX_APPROVAL_CONTENT_BYTES, unit);
        const ok = await startRun(t.http, ws.key, definitionId, { doc: content });
        await waitForRun(t.http, ws.key, ok, 'PAUSED');
        const list = await t.http.get('/v1/approval-requests').set('x-api-key', ws.key);
        expect(list.body.data.map((r: { content: unknown }) => r.content)).toEqual([content]);
      },
    );

    it.each(PAD_UNITS)(
      'an editedContent one byte over is 413 and the request stays undecided (padding %s)',
      async (unit) => {
        const ws = await createWorkspaceWithKey(t.http);
        const definitionId = await createDefinition(t.http, ws.key, review);
        const runId = await startRun(t.http, ws.key, definitionId, { doc: { text: 'draft' } });
        await waitForRun(t.http, ws.key, runId, 'PAUSED');
        const [request] = (await t.http.get('/v1/approval-requests').set('x-api-key', ws.key)).body
          .data as Array<{ id: string }>;
        const decide = (editedContent: Record<string, unknown>) =>
          t.http
            .post(`/v1/approval-requests/${request.id}/decide`)
            .set('x-api-key', ws.key)
            .send({ decision: 'edited', editedContent });
        expectLimit(
          await decide(sized(LIMITS.MAX_APPROVAL_CONTENT_BYTES + 1, unit)),
          413,
          'editedContent',
          'MAX_APPROVAL_CONTENT_BYTES',
        );
        const pending = await t.http
          .get('/v1/approval-requests?pending=true')
          .set('x-api-key', ws.key);
        expect(pending.body.data).toHaveLength(1);
        expect((await getRun(t.http, ws.key, runId)).status).toBe('PAUSED');
        const edited = sized(LIMITS.MAX_APPROVAL_CONTENT_BYTES, unit);
        expect((await decide(edited)).status).toBe(200);
        const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
        expect(done.output?.doc).toEqual(edited);
      },
    );
  });

  describe('requests awaiting a decision (MAX_PENDING_APPROVALS_PER_WORKSPACE)', () => {
    it('fails the approval step past the limit; a cancelled run frees its place', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const definitionId = await createDefinition(t.http, ws.key, [
        { type: 'approval', name: 'review', contentKey: 'doc', retry: { maxAttempts: 3 } },
      ]);
      const paused: string[] = [];
      for (let i = 0; i < LIMITS.MAX_PENDING_APPROVALS_PER_WORKSPACE; i++) {
        const runId = await startRun(t.http, ws.key, definitionId, { doc: { i } });
        await waitForRun(t.http, ws.key, runId, 'PAUSED');
        paused.push(runId);
      }
      const refused = await startRun(t.http, ws.key, definitionId, { doc: { i: 'over' } });
      const failed = await waitForRun(t.http, ws.key, refused, 'FAILED');
      expect(failed.error).toContain('MAX_PENDING_APPROVALS_PER_WORKSPACE');
      const steps = await t.http.get(`/v1/workflow-runs/${refused}/steps`).set('x-api-key', ws.key);
      expect(steps.body.data).toHaveLength(1);
      const pending = await t.http
        .get('/v1/approval-requests?pending=true')
        .set('x-api-key', ws.key);
      expect(pending.body.data).toHaveLength(LIMITS.MAX_PENDING_APPROVALS_PER_WORKSPACE);

      // Another workspace has its own allowance.
      const other = await createWorkspaceWithKey(t.http);
      const otherDef = await createDefinition(t.http, other.key, [
        { type: 'approval', name: 'review', contentKey: 'doc' },
      ]);
      await waitForRun(
        t.http,
        other.key,
        await startRun(t.http, other.key, otherDef, { doc: {} }),
        'PAUSED',
      );

      // A cancelled run's request can never be decided: it no longer takes a place.
      const cancel = await t.http
        .post(`/v1/workflow-runs/${paused[0]}/cancel`)
        .set('x-api-key', ws.key);
      expect(cancel.status).toBe(200);
      const next = await startRun(t.http, ws.key, definitionId, { doc: { i: 'next' } });
      await waitForRun(t.http, ws.key, next, 'PAUSED');
    });
  });
});
