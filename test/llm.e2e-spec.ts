import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import { PROVIDER_ERROR_MAX_CHARS } from '../src/llm/provider-errors';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
  type ScriptedAnswer,
} from './support/fake-llm';
import {
  createDefinition,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
  type Step,
} from './support/workflows';

/** A model id no other test uses, so that scripts and recorded requests stay apart. */
const uniqueModel = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;

function ofType(events: EventView[], type: string): EventView[] {
  return events.filter((e) => e.eventType === type);
}

describe('llm steps', () => {
  let t: TestApp;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let key: string;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp(fakeLlmEnv(openai, anthropic));
    ({ key } = await createWorkspaceWithKey(t.http));
  });

  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  async function runToEnd(
    steps: Step[],
    input: Record<string, unknown> = {},
    statuses = ['COMPLETED', 'FAILED'],
  ) {
    const definitionId = await createDefinition(t.http, key, steps);
    const runId = await startRun(t.http, key, definitionId, input);
    const run = await waitForRun(t.http, key, runId, statuses);
    return { runId, run, events: await runEvents(t.http, key, runId) };
  }

  it('sends the messages with {{placeholders}} filled from the run state to Chat Completions', async () => {
    const model = uniqueModel('writer');
    openai.script(model, {
      text: 'Dear Ann, your order 42 ships today.',
      inputTokens: 31,
      outputTokens: 9,
    });
    const { run, events } = await runToEnd(
      [
        {
          type: 'llm',
          name: 'draft',
          model: `openai:${model}`,
          temperature: 0.3,
          maxTokens: 200,
          messages: [
            { role: 'system', content: 'You write for {{company}}.' },
            {
              role: 'user',
              content: 'Write to {{customer.name}} about order {{order.id}}: {{order}}',
            },
          ],
        },
      ],
      { company: 'Acme', customer: { name: 'Ann' }, order: { id: 42, items: 2 } },
    );
    expect(run.status).toBe('COMPLETED');

    const [request] = openai.requestsFor(model);
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-openai');
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You write for Acme.' },
      { role: 'user', content: 'Write to Ann about order 42: {"id":42,"items":2}' },
    ]);
    expect(request.body).toMatchObject({ model, temperature: 0.3, max_tokens: 200 });

    expect(run.output?.draft).toEqual({
      text: 'Dear Ann, your order 42 ships today.',
      model: `openai:${model}`,
      inputTokens: 31,
      outputTokens: 9,
      costUsd: 0,
      toolCalls: [],
    });
    expect(ofType(events, 'LLM_CALL_STARTED').map((e) => e.payload)).toEqual([
      { model: `openai:${model}` },
    ]);
    expect(ofType(events, 'LLM_CALL_COMPLETED').map((e) => e.payload)).toEqual([
      { model: `openai:${model}`, inputTokens: 31, outputTokens: 9, costUsd: 0 },
    ]);
  });

  it('calls anthropic: models through the Messages API with the system prompt apart', async () => {
    const model = uniqueModel('claude-test');
    anthropic.script(model, { text: 'Bonjour', inputTokens: 12, outputTokens: 3 });
    const { run } = await runToEnd(
      [
        {
          type: 'llm',
          name: 'translate',
          model: `anthropic:${model}`,
          maxTokens: 50,
          messages: [
            { role: 'system', content: 'Translate to French.' },
            { role: 'user', content: '{{word}}' },
          ],
        },
      ],
      { word: 'Hello' },
    );
    expect(run.status).toBe('COMPLETED');
    const [request] = anthropic.requestsFor(model);
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe('sk-ant-test');
    expect(request.body.max_tokens).toBe(50);
    expect(request.body.system).toEqual([{ type: 'text', text: 'Translate to French.' }]);
    expect(request.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ]);
    expect(run.output?.translate).toMatchObject({
      text: 'Bonjour',
      model: `anthropic:${model}`,
      inputTokens: 12,
      outputTokens: 3,
    });
  });

  it('falls back to the next model after an HTTP 500, across providers', async () => {
    const primary = uniqueModel('flaky');
    const fallback = uniqueModel('steady');
    openai.script(primary, { status: 500, error: 'upstream exploded' });
    anthropic.script(fallback, { text: 'from the fallback' });
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'answer',
        model: primary,
        fallbackModels: [`anthropic:${fallback}`],
        messages: [{ role: 'user', content: 'hi' }],
      },
    ]);
    expect(run.status).toBe('COMPLETED');
    expect(run.output?.answer).toMatchObject({
      text: 'from the fallback',
      model: `anthropic:${fallback}`,
    });
    expect(ofType(events, 'LLM_CALL_FAILED').map((e) => e.payload)).toEqual([
      { model: primary, error: 'HTTP 500: upstream exploded' },
    ]);
    expect(ofType(events, 'LLM_FALLBACK_TRIGGERED').map((e) => e.payload)).toEqual([
      {
        model: `anthropic:${fallback}`,
        fromModel: primary,
        reason: 'HTTP 500: upstream exploded',
      },
    ]);
    expect(ofType(events, 'LLM_CALL_COMPLETED').map((e) => e.payload.model)).toEqual([
      `anthropic:${fallback}`,
    ]);
    // A failed call consumed no tokens: only the fallback's call is a cost record.
    const cost = await t.http.get(`/v1/workflow-runs/${run.id}/cost`).set('x-api-key', key);
    expect(cost.body.data.calls.map((c: { model: string }) => c.model)).toEqual([
      `anthropic:${fallback}`,
    ]);
  });

  it('falls back when a call is slower than the per-call timeout', async () => {
    const slow = uniqueModel('slow');
    const quick = uniqueModel('quick');
    openai.script(slow, { text: 'too late', delayMs: 15_000 });
    openai.script(quick, { text: 'in time' });
    const started = Date.now();
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'answer',
        model: slow,
        fallbackModels: [quick],
        timeoutMs: 1500,
        messages: [{ role: 'user', content: 'hi' }],
      },
    ]);
    expect(run.status).toBe('COMPLETED');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.output?.answer).toMatchObject({ text: 'in time', model: quick });
    const [failed] = ofType(events, 'LLM_CALL_FAILED');
    expect(failed.payload.model).toBe(slow);
    expect(failed.payload.error).toBe('timed out after 1500 ms');
    expect(ofType(events, 'LLM_FALLBACK_TRIGGERED')[0].payload).toMatchObject({
      model: quick,
      fromModel: slow,
    });
  });

  it('falls back when an answer breaks a guardrail, and still counts the tokens of that answer', async () => {
    const chatty = uniqueModel('chatty');
    const careful = uniqueModel('careful');
    openai.script(chatty, { text: 'Call me at 555-1234!', inputTokens: 7, outputTokens: 4 });
    openai.script(careful, { text: 'Write to us by email.', inputTokens: 7, outputTokens: 5 });
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'answer',
        model: chatty,
        fallbackModels: [careful],
        guardrails: { blockedPatterns: ['\\d{3}-\\d{4}'], maxOutputChars: 100 },
        messages: [{ role: 'user', content: 'How can I reach you?' }],
      },
    ]);
    expect(run.status).toBe('COMPLETED');
    expect(run.output?.answer).toMatchObject({ text: 'Write to us by email.', model: careful });
    expect(ofType(events, 'GUARDRAIL_TRIGGERED').map((e) => e.payload)).toEqual([
      {
        model: chatty,
        guardrail: 'blockedPatterns',
        reason: 'output matches the blocked pattern "\\\\d{3}-\\\\d{4}"',
      },
    ]);
    expect(ofType(events, 'LLM_FALLBACK_TRIGGERED')[0].payload).toMatchObject({
      model: careful,
      fromModel: chatty,
      reason: expect.stringContaining('guardrail blockedPatterns'),
    });
    expect(ofType(events, 'LLM_CALL_COMPLETED').map((e) => e.payload.model)).toEqual([
      chatty,
      careful,
    ]);
    const cost = await t.http.get(`/v1/workflow-runs/${run.id}/cost`).set('x-api-key', key);
    expect(cost.body.data).toMatchObject({ totalInputTokens: 14, totalOutputTokens: 9 });
    expect(cost.body.data.calls).toHaveLength(2);
  });

  it('retries the step when every model fails, then fails the run', async () => {
    const a = uniqueModel('down-a');
    const b = uniqueModel('down-b');
    openai.script(a, { status: 500 });
    anthropic.script(b, { status: 500 });
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'answer',
        model: `openai:${a}`,
        fallbackModels: [`anthropic:${b}`],
        retry: { maxAttempts: 2, initialDelayMs: 0 },
        messages: [{ role: 'user', content: 'hi' }],
      },
    ]);
    expect(run.status).toBe('FAILED');
    expect(run.error).toMatch(
      /^all 2 models failed: openai:.+: HTTP 500.*; anthropic:.+: HTTP 500/,
    );
    expect(openai.requestsFor(a)).toHaveLength(2);
    expect(anthropic.requestsFor(b)).toHaveLength(2);
    expect(ofType(events, 'LLM_CALL_FAILED')).toHaveLength(4);
    expect(ofType(events, 'LLM_FALLBACK_TRIGGERED')).toHaveLength(2);
    expect(ofType(events, 'STEP_RETRYING').map((e) => e.payload.attempt)).toEqual([2]);
    expect(ofType(events, 'STEP_FAILED')).toHaveLength(2);
    expect(ofType(events, 'WORKFLOW_FAILED')).toHaveLength(1);
  });

  it('runs a tool call through its task handler and sends the result back to the model', async () => {
    const model = uniqueModel('agent');
    openai.script(
      model,
      {
        toolCalls: [{ name: 'evaluate', arguments: { expression: 'order.total * 2' } }],
        inputTokens: 20,
        outputTokens: 8,
      },
      { text: 'Twice the total is 42.', inputTokens: 30, outputTokens: 6 },
    );
    const { run, events } = await runToEnd(
      [
        {
          type: 'llm',
          name: 'agent',
          model,
          messages: [{ role: 'user', content: 'What is twice the order total?' }],
          tools: [
            {
              name: 'evaluate',
              description: 'Evaluates a JSONata expression against the order',
              handler: 'transform',
              parameters: {
                type: 'object',
                properties: { expression: { type: 'string' } },
                required: ['expression'],
              },
            },
          ],
        },
      ],
      { order: { total: 21 } },
    );
    expect(run.status).toBe('COMPLETED');
    const [first, second] = openai.requestsFor(model);
    expect(first.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'evaluate',
          description: 'Evaluates a JSONata expression against the order',
          parameters: {
            type: 'object',
            properties: { expression: { type: 'string' } },
            required: ['expression'],
          },
        },
      },
    ]);
    const toolMessage = second.body.messages?.find((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage?.content as string)).toEqual({ value: 42 });
    expect(run.output?.agent).toMatchObject({
      text: 'Twice the total is 42.',
      inputTokens: 50,
      outputTokens: 14,
      toolCalls: [
        {
          tool: 'evaluate',
          input: { expression: 'order.total * 2' },
          output: { value: 42 },
          durationMs: expect.any(Number),
        },
      ],
    });
    expect(ofType(events, 'TOOL_CALL_EXECUTED').map((e) => e.payload)).toEqual([
      { model, tool: 'evaluate', durationMs: expect.any(Number) },
    ]);
  });

  it('fails the call when the model still calls tools after maxToolRoundtrips', async () => {
    const model = uniqueModel('loopy');
    openai.script(model, { toolCalls: [{ name: 'noop', arguments: {} }] });
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'agent',
        model,
        maxToolRoundtrips: 2,
        retry: { maxAttempts: 1 },
        messages: [{ role: 'user', content: 'loop' }],
        tools: [{ name: 'noop', handler: 'noop', parameters: { type: 'object' } }],
      },
    ]);
    expect(run.status).toBe('FAILED');
    expect(run.error).toBe('the model still called tools after 2 tool round trips');
    expect(openai.requestsFor(model)).toHaveLength(3);
    expect(ofType(events, 'TOOL_CALL_EXECUTED')).toHaveLength(3);
  });

  it('parses a JSON answer into json, falling back when an answer is not JSON', async () => {
    const sloppy = uniqueModel('sloppy');
    const strict = uniqueModel('strict');
    openai.script(sloppy, { text: 'Sure! Here is the JSON you asked for.' });
    anthropic.script(strict, { text: '```json\n{"title": "Tea", "tags": ["green"]}\n```' });
    const { run, events } = await runToEnd([
      {
        type: 'llm',
        name: 'meta',
        model: sloppy,
        fallbackModels: [`anthropic:${strict}`],
        responseFormat: 'json',
        guardrails: {
          jsonSchema: {
            type: 'object',
            required: ['title'],
            properties: { title: { type: 'string' }, tags: { type: 'array' } },
          },
        },
        messages: [{ role: 'user', content: 'Answer in JSON with a title.' }],
      },
    ]);
    expect(run.status).toBe('COMPLETED');
    expect(openai.requestsFor(sloppy)[0].body.response_format).toEqual({ type: 'json_object' });
    expect(run.output?.meta).toMatchObject({ json: { title: 'Tea', tags: ['green'] } });
    expect(ofType(events, 'GUARDRAIL_TRIGGERED').map((e) => e.payload)).toEqual([
      {
        model: sloppy,
        guardrail: 'responseFormat',
        reason: expect.stringMatching(/^response is not valid JSON/),
      },
    ]);
  });

  it('fails at once, without calling a provider, when a placeholder has no value', async () => {
    const model = uniqueModel('unused');
    openai.script(model, { text: 'never' });
    const { run, events } = await runToEnd([
      { type: 'llm', name: 'x', model, messages: [{ role: 'user', content: 'Hi {{who.name}}' }] },
    ]);
    expect(run.status).toBe('FAILED');
    expect(run.error).toBe('missing value for placeholder {{who.name}}');
    expect(openai.requestsFor(model)).toHaveLength(0);
    expect(ofType(events, 'STEP_RETRYING')).toHaveLength(0);
  });

  it('rejects invalid llm steps at definition time, naming the field', async () => {
    const llm = (extra: Record<string, unknown>) => ({
      type: 'llm',
      name: 'x',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      ...extra,
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [llm({ messages: undefined }), 'steps[0].messages'],
      [llm({ messages: [] }), 'steps[0].messages'],
      [llm({ messages: [{ role: 'tool', content: 'x' }] }), 'steps[0].messages[0].role'],
      [llm({ temperature: 2.5 }), 'steps[0].temperature'],
      [
        llm({ tools: [{ name: 't', parameters: { type: 'object' } }] }),
        'steps[0].tools[0].handler',
      ],
      [
        llm({ tools: [{ name: 't', handler: 'noop', parameters: { type: 'array' } }] }),
        'steps[0].tools[0].parameters',
      ],
      [
        llm({ guardrails: { blockedPatterns: ['(unclosed'] } }),
        'steps[0].guardrails.blockedPatterns[0]',
      ],
    ];
    for (const [step, field] of cases) {
      const res = await t.http
        .post('/v1/workflow-definitions')
        .set('x-api-key', key)
        .send({ name: 'bad', version: '1', steps: [step] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });
  describe('provider error texts shown to tenants', () => {
    const PROMPT_MARKER = 'prompt-marker-7f3a';
    const JUNK = `${'<td>stack frame dump</td> '.repeat(400)}`;
    /**
     * Things no tenant-visible text may carry: keys, the provider's address, the request. Junk in the
     * provider's own message is capped (checked by length); junk elsewhere in an answer never shows
     * (the exact texts of the raw-body cases).
     */
    const forbidden = () => [
      'sk-test-openai',
      'sk-ant-test',
      'sk-proj-9aBcDeFgHiJkLmNoP',
      'sk-ant-api03-QwErTyUiOp',
      'Bearer',
      '127.0.0.1',
      new URL(openai.origin).port,
      PROMPT_MARKER,
    ];

    it.each<[string, ScriptedAnswer, ScriptedAnswer, RegExp, RegExp]>([
      [
        'error messages that echo API keys and a link, then junk',
        {
          status: 401,
          error:
            'Incorrect API key provided: sk-test-openai (also tried sk-proj-9aBcDeFgHiJkLmNoP). ' +
            `You can find your API key at https://platform.openai.com/account/api-keys. ${JUNK}`,
        },
        { status: 400, error: `invalid x-api-key sk-ant-test and sk-ant-api03-QwErTyUiOp ${JUNK}` },
        /^HTTP 401: Incorrect API key provided: \[redacted\] \(also tried \[redacted\]\)\. You can find your API key at \[url\]\./,
        /^HTTP 400: invalid x-api-key \[redacted\] and \[redacted\]/,
      ],
      [
        'a proxy page and an answer that is not the provider JSON',
        {
          status: 502,
          rawBody: `<html><body>Bad gateway for Bearer sk-proj-9aBcDeFgHiJkLmNoP ${JUNK}</body></html>`,
        },
        { status: 200, rawBody: `{"unexpected": "sk-ant-api03-QwErTyUiOp", "dump": "${JUNK}"}` },
        /^HTTP 502: Bad Gateway$/,
        /^the provider answered with a response that could not be read$/,
      ],
      [
        'a truncated answer and a provider message of nothing but junk',
        {
          status: 200,
          rawBody: `{"id": "chatcmpl-1", "choices": [{"message": "sk-test-openai ${JUNK}`,
        },
        { status: 529, error: JUNK },
        /^the provider answered with a response that could not be read$/,
        /^HTTP 529: .*…$/,
      ],
    ])(
      'keeps only the provider message for %s: step error, LLM_CALL_FAILED and LLM_FALLBACK_TRIGGERED',
      async (_case, primary, fallback, primaryText, fallbackText) => {
        const a = uniqueModel('leaky-a');
        const b = uniqueModel('leaky-b');
        openai.script(a, primary);
        anthropic.script(b, fallback);
        const { run, events } = await runToEnd([
          {
            type: 'llm',
            name: 'answer',
            model: `openai:${a}`,
            fallbackModels: [`anthropic:${b}`],
            retry: { maxAttempts: 1 },
            messages: [{ role: 'user', content: `Say hi (${PROMPT_MARKER})` }],
          },
        ]);
        expect(run.status).toBe('FAILED');
        const failed = ofType(events, 'LLM_CALL_FAILED').map((e) => e.payload.error as string);
        const [fallbackEvent] = ofType(events, 'LLM_FALLBACK_TRIGGERED');
        expect(failed).toHaveLength(2);
        expect(failed[0]).toMatch(primaryText);
        expect(failed[1]).toMatch(fallbackText);
        expect(fallbackEvent.payload).toEqual({
          model: `anthropic:${b}`,
          fromModel: `openai:${a}`,
          reason: failed[0],
        });
        expect(run.error).toBe(
          `all 2 models failed: openai:${a}: ${failed[0]}; anthropic:${b}: ${failed[1]}`,
        );
        for (const text of failed)
          expect(text.length).toBeLessThanOrEqual(PROVIDER_ERROR_MAX_CHARS);
        const shown = JSON.stringify({ run, events });
        for (const secret of forbidden()) expect(shown).not.toContain(secret);
      },
    );
  });
});
