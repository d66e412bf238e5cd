import { randomBytes, randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import type { Step } from './support/workflows';
import { ISO_MS, UUID } from './support/formats';

const noop = (name: string, extra: Step = {}): Step => ({
  type: 'task',
  name,
  handler: 'noop',
  ...extra,
});
const llm = (extra: Step = {}): Step => ({
  type: 'llm',
  name: 'ask',
  model: 'openai:gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hello {{name}}' }],
  ...extra,
});

describe('workflow definitions', () => {
  let t: TestApp;
  let a: WorkspaceWithKey;
  let b: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    a = await createWorkspaceWithKey(t.http);
    b = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
  });

  const uniqueName = () => `wf-${randomBytes(4).toString('hex')}`;
  const post = (body: Record<string, unknown>, key = a.key) =>
    t.http.post('/v1/workflow-definitions').set('x-api-key', key).send(body);

  async function definitionCount(): Promise<number> {
    const [row] = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM workflow_definitions');
    return row.n;
  }

  describe('POST /v1/workflow-definitions', () => {
    it('creates a definition: 201 with id, workspaceId, name, version, description, steps and timestamps', async () => {
      const name = uniqueName();
      const steps = [
        noop('first'),
        { type: 'condition', name: 'check', expression: 'amount > 10', then: 'first' },
      ];
      const res = await post({ name, version: '1.0.0', description: 'orders', steps });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          workspaceId: a.workspace.id,
          name,
          version: '1.0.0',
          description: 'orders',
          steps,
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
        },
      });
    });

    it('answers description null when none is given', async () => {
      const res = await post({ name: uniqueName(), version: '1', steps: [noop('s')] });
      expect(res.status).toBe(201);
      expect(res.body.data.description).toBeNull();
    });

    it('answers 401 AUTH_ERROR without an API key', async () => {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .send({ name: uniqueName(), version: '1', steps: [noop('s')] });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'AUTH_ERROR', message: 'missing x-api-key header' },
      });
    });

    it('answers 409 CONFLICT for a second (name, version) in one workspace, and writes nothing', async () => {
      const name = uniqueName();
      expect((await post({ name, version: '1', steps: [noop('s')] })).status).toBe(201);
      const before = await definitionCount();
      const res = await post({ name, version: '1', steps: [noop('other')] });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: expect.stringContaining(name) },
      });
      expect(await definitionCount()).toBe(before);
    });

    it('allows a new version of the same name in one workspace', async () => {
      const name = uniqueName();
      expect((await post({ name, version: '1', steps: [noop('s')] })).status).toBe(201);
      expect((await post({ name, version: '2', steps: [noop('s')] })).status).toBe(201);
    });

    it('allows the same (name, version) in another workspace', async () => {
      const name = uniqueName();
      const first = await post({ name, version: '1', steps: [noop('s')] }, a.key);
      const second = await post({ name, version: '1', steps: [noop('s')] }, b.key);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body.data.workspaceId).toBe(b.workspace.id);
      expect(second.body.data.id).not.toBe(first.body.data.id);
    });

    it('gives one 201 and one 409 for two concurrent creations of one (name, version)', async () => {
      const name = uniqueName();
      const answers = await Promise.all([
        post({ name, version: '1', steps: [noop('s')] }),
        post({ name, version: '1', steps: [noop('s')] }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    });
  });

  describe('validation: 400 VALIDATION_ERROR naming the field, nothing written', () => {
    const valid = () => ({ name: uniqueName(), version: '1', steps: [noop('s')] });

    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing name', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
      ['name not a string', { name: 5 }, 'name'],
      ['missing version', { version: undefined }, 'version'],
      ['empty version', { version: '' }, 'version'],
      ['version over 50 characters', { version: 'v'.repeat(51) }, 'version'],
      ['description over 1000 characters', { description: 'd'.repeat(1001) }, 'description'],
      ['missing steps', { steps: undefined }, 'steps'],
      ['empty steps', { steps: [] }, 'steps'],
      ['steps not an array', { steps: { type: 'task' } }, 'steps'],
      ['an unknown top-level field', { owner: 'me' }, 'owner'],
      [
        'a task without handler',
        { steps: [noop('a'), noop('b'), { type: 'task', name: 'c' }] },
        'steps[2].handler',
      ],
      ['an unknown step field', { steps: [noop('a', { colour: 'red' })] }, 'steps[0].colour'],
      ['an unknown step type', { steps: [{ type: 'sleep', name: 'a' }] }, 'steps[0].type'],
      ['duplicate step names', { steps: [noop('a'), noop('a')] }, 'steps[1].name'],
      ['a step name over 100 characters', { steps: [noop('n'.repeat(101))] }, 'steps[0].name'],
      [
        'then naming a missing step',
        { steps: [{ type: 'condition', name: 'c', expression: 'true', then: 'nowhere' }] },
        'steps[0].then',
      ],
      [
        'else naming a missing step',
        { steps: [{ type: 'condition', name: 'c', expression: 'true', else: 'nowhere' }] },
        'steps[0].else',
      ],
      [
        'regenerateFrom naming a missing step',
        { steps: [{ type: 'approval', name: 'r', contentKey: 'x', regenerateFrom: 'nowhere' }] },
        'steps[0].regenerateFrom',
      ],
      [
        'an invalid JSONata condition',
        { steps: [{ type: 'condition', name: 'c', expression: 'amount >' }] },
        'steps[0].expression',
      ],
      [
        'an invalid JSONata transform',
        { steps: [noop('t', { handler: 'transform', config: { expression: '{"a":' } })] },
        'steps[0].config.expression',
      ],
      [
        'a condition expression over 2000 characters',
        { steps: [{ type: 'condition', name: 'c', expression: `"${'x'.repeat(1999)}"` }] },
        'steps[0].expression',
      ],
      [
        'a transform expression over 2000 characters',
        {
          steps: [
            noop('t', { handler: 'transform', config: { expression: `"${'x'.repeat(1999)}"` } }),
          ],
        },
        'steps[0].config.expression',
      ],
      [
        'a wait with both durationMs and until',
        { steps: [{ type: 'wait', name: 'w', durationMs: 10, until: '2030-01-01T00:00:00Z' }] },
        'steps[0].until',
      ],
      [
        'a wait until that is not ISO 8601',
        { steps: [{ type: 'wait', name: 'w', until: 'next tuesday' }] },
        'steps[0].until',
      ],
      [
        'a negative durationMs',
        { steps: [{ type: 'wait', name: 'w', durationMs: -5 }] },
        'steps[0].durationMs',
      ],
      [
        'an llm step without messages',
        { steps: [{ type: 'llm', name: 'ask', model: 'gpt-4o-mini' }] },
        'steps[0].messages',
      ],
      ['an llm step with empty messages', { steps: [llm({ messages: [] })] }, 'steps[0].messages'],
      [
        'a message role outside system/user/assistant',
        { steps: [llm({ messages: [{ role: 'tool', content: 'x' }] })] },
        'steps[0].messages[0].role',
      ],
      ['a temperature below 0', { steps: [llm({ temperature: -0.5 })] }, 'steps[0].temperature'],
      ['a temperature above 2', { steps: [llm({ temperature: 2.5 })] }, 'steps[0].temperature'],
      [
        'a tool without handler',
        { steps: [llm({ tools: [{ name: 'lookup', parameters: { type: 'object' } }] })] },
        'steps[0].tools[0].handler',
      ],
      [
        'tool parameters that are not an object',
        { steps: [llm({ tools: [{ name: 'lookup', handler: 'noop', parameters: 'x' }] })] },
        'steps[0].tools[0].parameters',
      ],
      [
        'tool parameters that are a non-object schema',
        {
          steps: [
            llm({ tools: [{ name: 'lookup', handler: 'noop', parameters: { type: 'array' } }] }),
          ],
        },
        'steps[0].tools[0].parameters',
      ],
      [
        'an invalid guardrail regex',
        { steps: [llm({ guardrails: { blockedPatterns: ['(unclosed'] } })] },
        'steps[0].guardrails.blockedPatterns[0]',
      ],
      [
        'an approval without contentKey',
        { steps: [{ type: 'approval', name: 'review', prompt: 'ok?' }] },
        'steps[0].contentKey',
      ],
      [
        'retry.maxAttempts of 0',
        { steps: [noop('a', { retry: { maxAttempts: 0 } })] },
        'steps[0].retry.maxAttempts',
      ],
      [
        'retry.maxAttempts of 21',
        { steps: [noop('a', { retry: { maxAttempts: 21 } })] },
        'steps[0].retry.maxAttempts',
      ],
      [
        'an unknown retry field',
        { steps: [noop('a', { retry: { tries: 2 } })] },
        'steps[0].retry.tries',
      ],
    ];

    it.each(cases)('rejects %s', async (_case, patch, field) => {
      const before = await definitionCount();
      const res = await post({ ...valid(), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(typeof res.body.error.message).toBe('string');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
      expect(await definitionCount()).toBe(before);
    });

    it('accepts the limits themselves: name of 200, version of 50, description of 1000 characters', async () => {
      const res = await post({
        name: `${uniqueName()}${'n'.repeat(189)}`,
        version: 'v'.repeat(50),
        description: 'd'.repeat(1000),
        steps: [noop('s', { retry: { maxAttempts: 20 } })],
      });
      expect(res.status).toBe(201);
      expect(res.body.data.name).toHaveLength(200);
    });

    it('reports the bad fields of several steps in one answer', async () => {
      const res = await post({
        ...valid(),
        steps: [
          { type: 'task', name: 'a' },
          { type: 'approval', name: 'b' },
        ],
      });
      expect(res.status).toBe(400);
      const fields = (res.body.error.details.errors as Array<{ field: string }>).map(
        (e) => e.field,
      );
      expect(fields).toEqual(expect.arrayContaining(['steps[0].handler', 'steps[1].contentKey']));
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', a.key)
        .set('content-type', 'application/json')
        .send('{"name": ');
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('GET /v1/workflow-definitions', () => {
    it('lists the workspace definitions newest first, with no meta', async () => {
      const ws = await createWorkspaceWithKey(t.http);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await post({ name: uniqueName(), version: '1', steps: [noop('s')] }, ws.key);
        ids.push(res.body.data.id as string);
      }
      const res = await t.http.get('/v1/workflow-definitions').set('x-api-key', ws.key);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
      expect(res.body.success).toBe(true);
      expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
      expect(res.body.data[0]).toEqual({
        id: ids[2],
        workspaceId: ws.workspace.id,
        name: expect.any(String),
        version: '1',
        description: null,
        steps: [noop('s')],
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('never lists definitions of another workspace', async () => {
      const mine = await createWorkspaceWithKey(t.http);
      const theirs = await createWorkspaceWithKey(t.http);
      await post({ name: uniqueName(), version: '1', steps: [noop('s')] }, theirs.key);
      const res = await t.http.get('/v1/workflow-definitions').set('x-api-key', mine.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });
  });

  describe('GET /v1/workflow-definitions/:id', () => {
    it('returns the definition', async () => {
      const created = await post({ name: uniqueName(), version: '3', steps: [noop('s')] });
      const res = await t.http
        .get(`/v1/workflow-definitions/${created.body.data.id}`)
        .set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: created.body.data });
    });

    it.each([
      ['belongs to another workspace', 'other'],
      ['does not exist', randomUUID()],
      ['is not a UUID', 'not-a-uuid'],
      ['is a number', '12345'],
      ['is a UUID with trailing characters', `${randomUUID()}x`],
    ])('answers 404 NOT_FOUND when the id %s', async (_case, id) => {
      let target = id;
      if (id === 'other') {
        const created = await post({ name: uniqueName(), version: '1', steps: [noop('s')] }, b.key);
        target = created.body.data.id as string;
      }
      const res = await t.http.get(`/v1/workflow-definitions/${target}`).set('x-api-key', a.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
    });
  });

  describe('immutability', () => {
    it.each(['put', 'patch', 'delete'] as const)(
      'has no %s route: 404 NOT_FOUND envelope, definition unchanged',
      async (method) => {
        const created = await post({ name: uniqueName(), version: '1', steps: [noop('s')] });
        const id = created.body.data.id as string;
        const res = await t.http[method](`/v1/workflow-definitions/${id}`)
          .set('x-api-key', a.key)
          .send({ name: 'renamed', version: '1', steps: [noop('changed')] });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'NOT_FOUND', message: expect.any(String) },
        });
        const after = await t.http.get(`/v1/workflow-definitions/${id}`).set('x-api-key', a.key);
        expect(after.body.data).toEqual(created.body.data);
      },
    );
  });
});
