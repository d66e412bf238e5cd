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
  runEvents,
  startRun,
  waitForRun,
  type RunView,
  type Step,
} from './support/workflows';

/**
 * Nested quantifiers with an answer they miss: on V8's backtracking engine each of these holds the
 * event loop for minutes (the reported one froze the process for 73 s on 34 characters).
 */
const CATASTROPHIC: [string, string][] = [
  ['(a+)+$', `${'a'.repeat(5000)}!`],
  ['(a|aa)+$', `${'a'.repeat(5000)}!`],
  ['(.*a){20}', `${'b'.repeat(5000)}${'a'.repeat(19)}`],
  ['^(\\w+\\s?)*$', `${'word '.repeat(1000)}!`],
];

/** Another workspace's answers may be slow on a loaded machine, never stalled behind a regex. */
const OTHER_WORKSPACE_BOUND_MS = 3000;

const uniqueModel = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;

describe('tenant regular expressions run in linear time', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let hostile: WorkspaceWithKey;
  let other: WorkspaceWithKey;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp(fakeLlmEnv(openai, anthropic));
    hostile = await createWorkspaceWithKey(t.http);
    other = await createWorkspaceWithKey(t.http);
  });

  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  /** One llm step answering `text`, with no retries so that a guardrail failure ends the run. */
  function llmStep(text: string, extra: Step): Step {
    const model = uniqueModel('echo');
    openai.script(model, { text });
    return {
      type: 'llm',
      name: 'answer',
      model,
      retry: { maxAttempts: 1 },
      messages: [{ role: 'user', content: 'Repeat after me.' }],
      ...extra,
    };
  }

  /**
   * Waits for every run while the other workspace keeps asking for its definitions list; returns the
   * runs and the slowest answer the other workspace got meanwhile.
   */
  async function finishWhileOtherIsServed(
    runIds: string[],
  ): Promise<{ runs: RunView[]; slowestOtherMs: number; otherAnswers: number }> {
    let done = false;
    let slowestOtherMs = 0;
    let otherAnswers = 0;
    const probe = (async () => {
      while (!done) {
        const started = Date.now();
        const res = await t.http.get('/v1/workflow-definitions').set('x-api-key', other.key);
        expect(res.status).toBe(200);
        slowestOtherMs = Math.max(slowestOtherMs, Date.now() - started);
        otherAnswers++;
      }
    })();
    try {
      const runs = await Promise.all(
        runIds.map((id) => waitForRun(t.http, hostile.key, id, ['COMPLETED', 'FAILED'])),
      );
      return { runs, slowestOtherMs, otherAnswers };
    } finally {
      done = true;
      await probe;
    }
  }

  it('finishes llm steps whose guardrails are catastrophic patterns as the guardrails say, while another workspace is answered', async () => {
    const started: { runId: string; status: string; guardrail?: string }[] = [];
    for (const [pattern, text] of CATASTROPHIC) {
      const cases: [Step, string, string?][] = [
        [llmStep(text, { guardrails: { blockedPatterns: [pattern] } }), 'COMPLETED'],
        [
          llmStep(text, { guardrails: { requiredPatterns: ['^[\\s\\S]', pattern] } }),
          'FAILED',
          'requiredPatterns',
        ],
        [
          llmStep(JSON.stringify({ items: [text, text] }), {
            responseFormat: 'json',
            guardrails: {
              jsonSchema: { properties: { items: { items: { type: 'string', pattern } } } },
            },
          }),
          'FAILED',
          'jsonSchema',
        ],
      ];
      for (const [step, status, guardrail] of cases) {
        const definitionId = await createDefinition(t.http, hostile.key, [step]);
        started.push({
          runId: await startRun(t.http, hostile.key, definitionId),
          status,
          guardrail,
        });
      }
    }

    const { runs, slowestOtherMs, otherAnswers } = await finishWhileOtherIsServed(
      started.map((s) => s.runId),
    );

    expect(runs.map((r) => r.status)).toEqual(started.map((s) => s.status));
    for (const [i, { runId, guardrail }] of started.entries()) {
      const triggered = (await runEvents(t.http, hostile.key, runId)).filter(
        (e) => e.eventType === 'GUARDRAIL_TRIGGERED',
      );
      expect(triggered.map((e) => e.payload.guardrail)).toEqual(guardrail ? [guardrail] : []);
      if (guardrail === 'requiredPatterns') {
        expect(runs[i].error).toContain('does not match the required pattern');
      }
      if (guardrail === 'jsonSchema') {
        expect(triggered[0].payload.reason).toContain('$.items[1]: must match');
      }
    }
    expect(otherAnswers).toBeGreaterThan(0);
    expect(slowestOtherMs).toBeLessThan(OTHER_WORKSPACE_BOUND_MS);
  });

  it('finishes condition and transform steps whose JSONata regex literals are catastrophic, while another workspace is answered', async () => {
    const runIds: string[] = [];
    for (const [pattern, text] of CATASTROPHIC) {
      const definitionId = await createDefinition(t.http, hostile.key, [
        {
          type: 'task',
          name: 'clean',
          handler: 'transform',
          outputKey: 'clean',
          config: {
            expression: `{"hit": $contains(text, /${pattern}/), "same": $replace(text, /${pattern}/, "#") = text, "parts": $count($split(text, /${pattern}/))}`,
          },
        },
        {
          type: 'condition',
          name: 'check',
          expression: `$count($match(text, /${pattern}/i)) > 0`,
          then: 'matched',
          else: 'missed',
        },
        { type: 'task', name: 'matched', handler: 'noop', outputKey: 'matched' },
        { type: 'task', name: 'missed', handler: 'noop', outputKey: 'missed' },
      ]);
      runIds.push(await startRun(t.http, hostile.key, definitionId, { text }));
    }

    const { runs, slowestOtherMs } = await finishWhileOtherIsServed(runIds);

    for (const run of runs) {
      expect(run.status).toBe('COMPLETED');
      expect(run.output).toMatchObject({
        clean: { hit: false, same: true, parts: 1 },
        check: { result: false, next: 'missed' },
        missed: {},
      });
    }
    expect(slowestOtherMs).toBeLessThan(OTHER_WORKSPACE_BOUND_MS);
  });

  it('finishes steps whose templates and JSON answers have the shapes our own patterns backtracked on', async () => {
    const unclosed = [`{{${' '.repeat(50_000)}x`, `{{a${' \n'.repeat(20_000)}`]; // under MAX_DEFINITION_BYTES
    const runIds: string[] = [];
    for (const content of unclosed) {
      const fenced = `\`\`\`json${'\n'.repeat(200_000)}x`;
      const step = llmStep(fenced, {
        responseFormat: 'json',
        messages: [{ role: 'user', content }],
      });
      runIds.push(
        await startRun(t.http, hostile.key, await createDefinition(t.http, hostile.key, [step])),
      );
      const task = { type: 'task', name: 'post', handler: 'noop', config: { note: content } };
      runIds.push(
        await startRun(t.http, hostile.key, await createDefinition(t.http, hostile.key, [task])),
      );
    }

    const { runs, slowestOtherMs } = await finishWhileOtherIsServed(runIds);

    expect(runs.map((r) => r.status)).toEqual(['FAILED', 'COMPLETED', 'FAILED', 'COMPLETED']);
    expect(runs[0].error).toContain('response is not valid JSON');
    expect(slowestOtherMs).toBeLessThan(OTHER_WORKSPACE_BOUND_MS);
  });

  describe('definitions with patterns RE2 cannot run', () => {
    const llm = (guardrails: Record<string, unknown>): Step => ({
      type: 'llm',
      name: 'ask',
      model: 'openai:gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      guardrails,
    });
    const unsupported: [string, RegExp][] = [
      ['a(?=b)', /^lookahead `\(\?=` is not supported: tenant patterns use RE2 syntax/],
      ['(?<!a)b', /^lookbehind `\(\?<!` is not supported/],
      ['(a)\\1', /^backreference `\\1` is not supported/],
      ['a*+', /^possessive quantifier `\*\+` is not supported/],
      ['(?>a)b', /^atomic group `\(\?>` is not supported/],
      ['\\w{1000}\\w{1000}\\w{1000}', /^regular expression too large/],
    ];
    // JSONata parses its regex literals as JavaScript first: possessive and atomic forms are not
    // JavaScript, so they never reach the linear engine there.
    const inJsonata = unsupported.filter(([p]) => !p.includes('*+') && !p.includes('(?>'));
    const places: [string, (pattern: string) => Step[], string][] = [
      [
        'blockedPatterns',
        (p) => [llm({ blockedPatterns: ['ok', p] })],
        'steps[0].guardrails.blockedPatterns[1]',
      ],
      [
        'requiredPatterns',
        (p) => [llm({ requiredPatterns: [p] })],
        'steps[0].guardrails.requiredPatterns[0]',
      ],
      [
        'jsonSchema',
        (p) => [
          { type: 'task', name: 'first', handler: 'noop' },
          { type: 'task', name: 'second', handler: 'noop' },
          {
            ...llm({ jsonSchema: { properties: { code: { anyOf: [{ pattern: p }] } } } }),
            name: 'third',
          },
        ],
        'steps[2].guardrails.jsonSchema.properties.code.anyOf[0].pattern',
      ],
    ];

    async function expectRefused(steps: Step[], field: string, message: RegExp) {
      const before = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM workflow_definitions WHERE workspace_id = $1',
        [hostile.workspace.id],
      );
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', hostile.key)
        .send({ name: `wf-${randomBytes(4).toString('hex')}`, version: '1', steps });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual([
        { field, message: expect.stringMatching(message) as unknown },
      ]);
      const after = await t.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM workflow_definitions WHERE workspace_id = $1',
        [hostile.workspace.id],
      );
      expect(after[0].n).toBe(before[0].n);
    }

    for (const [place, build, field] of places) {
      it.each(unsupported)(`refuses %j in ${place}, naming ${field}`, async (pattern, message) => {
        await expectRefused(build(pattern), field, message);
      });
    }

    it.each(inJsonata)(
      'refuses the regex literal /%s/ in a condition expression and a transform config.expression',
      async (pattern, message) => {
        const literal = new RegExp(
          `^regular expression /.+/ at position \\d+: ${message.source.replace(/^\^/, '')}`,
        );
        await expectRefused(
          [
            { type: 'task', name: 'a', handler: 'noop' },
            { type: 'condition', name: 'check', expression: `$contains(text, /${pattern}/)` },
          ],
          'steps[1].expression',
          literal,
        );
        await expectRefused(
          [
            {
              type: 'task',
              name: 'clean',
              handler: 'transform',
              config: { expression: `$split(text, /,/)[$match($, /${pattern}/i)]` },
            },
          ],
          'steps[0].config.expression',
          literal,
        );
      },
    );

    it('still accepts the RE2 patterns a JavaScript author writes', async () => {
      const definitionId = await createDefinition(t.http, hostile.key, [
        llm({
          blockedPatterns: ['\\d{3}-\\d{4}', '(?i)secret', '\\bapi[_-]?key\\b'],
          requiredPatterns: ['^\\p{Lu}', '(?<greeting>Dear|Hello) \\w+'],
          jsonSchema: { properties: { code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' } } },
        }),
        {
          type: 'condition',
          name: 'check',
          expression: '$contains(ask.text, /^(dear|hello)\\s/i)',
        },
      ]);
      const res = await t.http
        .get(`/v1/workflow-definitions/${definitionId}`)
        .set('x-api-key', hostile.key);
      expect(res.status).toBe(200);
      expect(res.body.data.steps[0].guardrails.requiredPatterns).toEqual([
        '^\\p{Lu}',
        '(?<greeting>Dear|Hello) \\w+',
      ]);
    });
  });
});
