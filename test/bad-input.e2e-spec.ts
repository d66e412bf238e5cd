import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, uniqueSlug, type WorkspaceWithKey } from './support/factories';
import { createDefinition, eventually, startRun, waitForRun, type Step } from './support/workflows';

/**
 * Bad input is answered 400 naming the problem and writes nothing (design §9 as amended): query
 * integers out of range, request bodies that are not I-JSON, and the prototype-named keys, which are
 * unknown fields in closed schemas and plain data in open objects.
 */

/** Keys sorted at every level, so that values compare whatever order jsonb stored them in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.keys(value)
    .sort()
    .map((k) => [k, canonical((value as Record<string, unknown>)[k])]);
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

describe('bad input', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends `text` as it is, so that duplicates and escapes reach the server unchanged. */
  const raw = (method: 'post', path: string, text: string, key: string | null = ws.key) => {
    const req = t.http[method](path).set('content-type', 'application/json');
    if (key) req.set('x-api-key', key);
    return req.send(text);
  };

  async function tableCounts(): Promise<Record<string, number>> {
    const [row] = await t.sql<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM workspaces) AS workspaces,
              (SELECT count(*)::int FROM api_keys) AS keys,
              (SELECT count(*)::int FROM workflow_definitions) AS definitions,
              (SELECT count(*)::int FROM workflow_runs) AS runs,
              (SELECT count(*)::int FROM run_events) AS events,
              (SELECT count(*)::int FROM run_signals) AS signals,
              (SELECT count(*)::int FROM webhooks) AS webhooks,
              (SELECT count(*)::int FROM approval_requests WHERE decision IS NOT NULL) AS decided`,
    );
    return row;
  }

  /** The counts once no run is executing any more, so that the executor's writes cannot move them. */
  async function settledCounts(): Promise<Record<string, number>> {
    await eventually(
      async () => {
        const [row] = await t.sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM workflow_runs WHERE status IN ('PENDING', 'RUNNING')`,
        );
        return row.n === 0 ? true : undefined;
      },
      15_000,
      'every run to stop executing',
    );
    return tableCounts();
  }

  function expectFieldError(res: Response, field: string, message?: RegExp): void {
    expect({ status: res.status, code: res.body.error?.code }).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    const errors = res.body.error.details.errors as Array<{ field: string; message: string }>;
    expect(errors.map((e) => e.field)).toContain(field);
    if (message) expect(errors.find((e) => e.field === field)?.message).toMatch(message);
  }

  describe('query parameters out of range', () => {
    let runId: string;
    let webhookId: string;

    beforeAll(async () => {
      const definitionId = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 's', handler: 'noop' },
      ]);
      runId = await startRun(t.http, ws.key, definitionId);
      await waitForRun(t.http, ws.key, runId, 'COMPLETED');
      const hook = await t.http
        .post('/v1/webhooks')
        .set('x-api-key', ws.key)
        .send({ url: 'https://hooks.example.com/x', events: ['workflow.completed'] });
      webhookId = hook.body.data.id as string;
    });

    const lists = () => [
      '/v1/workflow-runs',
      `/v1/workflow-runs/${runId}/events`,
      `/v1/webhooks/${webhookId}/deliveries`,
    ];
    const BAD_INTEGERS = [
      '99999999999999999999',
      '9223372036854775808',
      '-99999999999999999999',
      '1e3',
      '0x10',
      '1.5',
      '-1',
      '0',
      'abc',
      '',
      '%201',
      '%EF%BC%91',
      'Infinity',
      'NaN',
    ];

    it('answers 400 naming page or pageSize for every out-of-range or non-decimal value on every paginated list', async () => {
      const failures: string[] = [];
      for (const list of lists()) {
        const cases: Array<[string, string]> = [
          ...BAD_INTEGERS.flatMap((v): Array<[string, string]> => [
            ['page', v],
            ['pageSize', v],
          ]),
          ['page', '2147483648'],
          ['pageSize', '101'],
          ['pageSize', '2147483647'],
        ];
        for (const [param, value] of cases) {
          const res = await t.http.get(`${list}?${param}=${value}`).set('x-api-key', ws.key);
          const fields = (res.body.error?.details?.errors ?? []).map(
            (e: { field: string }) => e.field,
          );
          if (
            res.status !== 400 ||
            res.body.error.code !== 'VALIDATION_ERROR' ||
            !fields.includes(param)
          ) {
            failures.push(`${list}?${param}=${value} -> ${res.status} ${res.text.slice(0, 120)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });

    it('answers 400 for a repeated page parameter', async () => {
      for (const list of lists()) {
        const res = await t.http.get(`${list}?page=1&page=2`).set('x-api-key', ws.key);
        expectFieldError(res, 'page');
      }
    });

    it('answers the largest page with an empty list, not an error', async () => {
      for (const list of lists()) {
        const res = await t.http
          .get(`${list}?page=2147483647&pageSize=100`)
          .set('x-api-key', ws.key);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual([]);
        expect(res.body.meta.page).toBe(2147483647);
      }
    });

    it.each([
      ['from', '0000-01-01'],
      ['from', '2025-13-01'],
      ['to', '2025-02-30'],
      ['to', '99999-01-01'],
      ['from', '2025-01-01T25:00:00Z'],
      ['to', '1e3'],
      ['from', '2025-01-01T00:00:00'],
      ['to', ''],
    ])('answers 400 naming %s for the date %j of the cost summary', async (param, value) => {
      const res = await t.http
        .get(`/v1/cost/summary?${param}=${encodeURIComponent(value)}`)
        .set('x-api-key', ws.key);
      expectFieldError(res, param);
    });

    it.each([
      ['1000-01-01', '9999-12-31T23:59:59.999Z'],
      ['1000-01-01T00:00:00+14:00', '9999-12-31T23:59:59.999-14:00'],
      ['1970-01-01T00:00:00+14:00', '2100-01-01'],
    ])('accepts the extreme dates from=%s to=%s', async (from, to) => {
      const res = await t.http
        .get(`/v1/cost/summary?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)
        .set('x-api-key', ws.key);
      expect(res.status).toBe(200);
    });

    it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])(
      'refuses %s as an unknown query parameter',
      async (name) => {
        for (const path of ['/v1/workflow-runs', '/v1/approval-requests', '/v1/cost/summary']) {
          const res = await t.http.get(`${path}?${name}=1`).set('x-api-key', ws.key);
          expectFieldError(res, name, /is not allowed/);
        }
      },
    );
  });

  describe('I-JSON request bodies', () => {
    let definitionId: string;
    let waitingRunId: string;

    beforeAll(async () => {
      definitionId = await createDefinition(t.http, ws.key, [
        { type: 'external_event', name: 'paid', signalType: 'payment' },
      ]);
      waitingRunId = await startRun(t.http, ws.key, definitionId);
      await waitForRun(t.http, ws.key, waitingRunId, 'WAITING');
    });

    const duplicates = (): Array<[string, string, string, string | null]> => {
      const slug = uniqueSlug();
      const step = '{"type": "task", "name": "a", "handler": "noop"';
      return [
        ['/v1/workspaces', `{"name": "a", "slug": "${slug}", "slug": "${slug}-2"}`, 'slug', null],
        ['/v1/api-keys', '{"name": "a", "name": "b"}', 'name', ws.key],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "name": "m", "steps": [${step}}]}`,
          'name',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${step}, "config": {"x": 1, "y": {"z": 1}, "x": 2}}]}`,
          'steps[0].config.x',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${step}}, {"type": "wait", "name": "b", "type": "wait"}]}`,
          'steps[1].type',
          ws.key,
        ],
        [
          '/v1/workflow-runs',
          `{"definitionId": "${randomUUID()}", "definitionId": "${randomUUID()}"}`,
          'definitionId',
          ws.key,
        ],
        [
          '/v1/workflow-runs',
          `{"definitionId": "DEF", "input": {"a": {"b": [0, {"c": 1, "\\u0063": 2}]}}}`,
          'input.a.b[1].c',
          ws.key,
        ],
        [
          `/v1/workflow-runs/RUN/resume`,
          '{"signalType": "payment", "payload": {"k": {"deep": [[{"k": 1, "k": 1}]]}}}',
          'payload.k.deep[0][0].k',
          ws.key,
        ],
        [
          `/v1/workflow-runs/RUN/signals`,
          '{"signalType": "payment", "payload": [{"k": 1, "k": 2}]}',
          'payload[0].k',
          ws.key,
        ],
        [
          '/v1/webhooks',
          '{"url": "https://a.example.com/h", "events": ["workflow.completed"], "url": "https://b.example.com/h"}',
          'url',
          ws.key,
        ],
      ];
    };

    it('refuses a duplicated member name at any depth on every route, naming it, writing nothing', async () => {
      const before = await settledCounts();
      for (const [path, text, field, key] of duplicates()) {
        const res = await raw(
          'post',
          path.replace('RUN', waitingRunId),
          text.replace('DEF', definitionId),
          key,
        );
        expectFieldError(res, field, /duplicated member name/);
      }
      expect(await tableCounts()).toEqual(before);
      expect(
        (await t.http.get(`/v1/workflow-runs/${waitingRunId}`).set('x-api-key', ws.key)).body.data
          .status,
      ).toBe('WAITING');
    });

    const NONCHARACTERS = [
      '\\ufdd0',
      '\\ufdef',
      '\\ufffe',
      '\\uffff',
      '\\ud83f\\udffe',
      '\\ud87f\\udfff',
      '\\udbff\\udfff',
    ];

    it.each(NONCHARACTERS)(
      'refuses the noncharacter %s in a value or a key, naming the field',
      async (nc) => {
        const before = await settledCounts();
        const cases: Array<[string, string, string]> = [
          [
            '/v1/workflow-runs',
            `{"definitionId": "${definitionId}", "input": {"note": "a${nc}b"}}`,
            'input.note',
          ],
          [
            '/v1/workflow-runs',
            `{"definitionId": "${definitionId}", "input": {"list": [{"k${nc}": 1}]}}`,
            `input.list[0].k${JSON.parse(`"${nc}"`)}`,
          ],
          [
            '/v1/workflow-definitions',
            `{"name": "n${nc}", "version": "1", "steps": [{"type": "wait", "name": "w"}]}`,
            'name',
          ],
          ['/v1/api-keys', `{"name": "${nc}"}`, 'name'],
        ];
        for (const [path, text, field] of cases) {
          expectFieldError(await raw('post', path, text), field, /noncharacter/);
        }
        // Sent as raw UTF-8 rather than as an escape.
        const literal = JSON.parse(`"${nc}"`) as string;
        expectFieldError(
          await raw(
            'post',
            '/v1/workflow-runs',
            `{"definitionId": "${definitionId}", "input": {"note": "${literal}"}}`,
          ),
          'input.note',
          /noncharacter/,
        );
        expect(await tableCounts()).toEqual(before);
      },
    );

    it('still accepts the code points next to the noncharacters, and still refuses an unpaired surrogate', async () => {
      const fine = '\\ufdcf\\ufdf0\\ufffd\\ud83f\\udffd\\ud83e\\udfff\\udbff\\udffd';
      const ok = await raw(
        'post',
        '/v1/workflow-runs',
        `{"definitionId": "${definitionId}", "input": {"s": "${fine}"}}`,
      );
      expect(ok.status).toBe(201);
      expect(ok.body.data.input.s).toBe(JSON.parse(`"${fine}"`));
      const lone = await raw(
        'post',
        '/v1/workflow-runs',
        `{"definitionId": "${definitionId}", "input": {"s": "\\ud800"}}`,
      );
      expectFieldError(lone, 'input.s', /unpaired surrogate/);
    });

    it.each(['utf-16', 'utf-16le', 'iso-8859-1', 'utf-32'])(
      'answers 415 for charset=%s (I-JSON is UTF-8)',
      async (charset) => {
        const res = await t.http
          .post('/v1/workflow-runs')
          .set('x-api-key', ws.key)
          .set('content-type', `application/json; charset=${charset}`)
          .send(JSON.stringify({ definitionId }));
        expect(res.status).toBe(415);
        expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      },
    );
  });

  describe('__proto__, constructor and prototype', () => {
    const task = '{"type": "task", "name": "a", "handler": "noop"';
    const llm =
      '{"type": "llm", "name": "l", "model": "openai:gpt-4o-mini", "messages": [{"role": "user", "content": "hi"';

    const closed = (): Array<[string, string, string]> =>
      PROTO_KEYS.flatMap((k): Array<[string, string, string]> => [
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "${k}": {"x": 1}, "steps": [${task}}]}`,
          k,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${task}, "${k}": {"x": 1}}]}`,
          `steps[0].${k}`,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${task}, "retry": {"maxAttempts": 2, "${k}": 1}}]}`,
          `steps[0].retry.${k}`,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${llm}, "${k}": "x"}]}]}`,
          `steps[0].messages[0].${k}`,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${llm}}], "guardrails": {"${k}": {}}}]}`,
          `steps[0].guardrails.${k}`,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${llm}}], "tools": [{"name": "t", "handler": "noop", "parameters": {}, "${k}": 1}]}]}`,
          `steps[0].tools[0].${k}`,
        ],
        ['/v1/workflow-runs', `{"definitionId": "${randomUUID()}", "${k}": {}}`, k],
        [
          '/v1/webhooks',
          `{"url": "https://a.example.com/h", "events": ["workflow.completed"], "${k}": 1}`,
          k,
        ],
        ['/v1/api-keys', `{"name": "k", "${k}": {"name": "x"}}`, k],
        [`/v1/approval-requests/${randomUUID()}/decide`, `{"decision": "approved", "${k}": 1}`, k],
      ]);

    it('refuses them as unknown fields of every closed schema, naming the path, writing nothing', async () => {
      const before = await settledCounts();
      for (const [path, text, field] of closed()) {
        expectFieldError(await raw('post', path, text), field, /is not allowed/);
      }
      // Also a workspace (no key).
      for (const k of PROTO_KEYS) {
        const res = await raw(
          'post',
          '/v1/workspaces',
          `{"name": "w", "slug": "${uniqueSlug()}", "${k}": 1}`,
          null,
        );
        expectFieldError(res, k, /is not allowed/);
      }
      expect(await tableCounts()).toEqual(before);
    });

    it('refuses them inside the value of a plain field, or of an unknown one, as 400 naming the field', async () => {
      // class-transformer throws on an object whose `constructor` is not a function: such a value in
      // any field, authenticated or not, must be refused like any other wrong value, never a 500.
      const before = await settledCounts();
      const hostile = '{"constructor": 1}';
      const cases: Array<[string, string, string, string | null]> = [
        [
          '/v1/workspaces',
          `{"name": "w", "slug": "${uniqueSlug()}", "foo": ${hostile}}`,
          'foo',
          null,
        ],
        ['/v1/workspaces', `{"name": ${hostile}, "slug": "${uniqueSlug()}"}`, 'name', null],
        ['/v1/workflow-runs', `{"definitionId": ${hostile}}`, 'definitionId', ws.key],
        [
          '/v1/workflow-runs',
          `{"definitionId": "${randomUUID()}", "idempotencyKey": {"constructor": {}}}`,
          'idempotencyKey',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [{"type": "task", "name": ${hostile}, "handler": "noop"}]}`,
          'steps[0].name',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${llm}, "extra": 1}]}]}`.replace(
            '"content": "hi", "extra": 1',
            `"content": {"constructor": 2}`,
          ),
          'steps[0].messages[0].content',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${task}, "retry": {"maxAttempts": ${hostile}}}]}`,
          'steps[0].retry.maxAttempts',
          ws.key,
        ],
        [
          '/v1/workflow-definitions',
          `{"name": "n", "version": "1", "steps": [${llm}}], "guardrails": {"blockedPatterns": [${hostile}]}}]}`,
          'steps[0].guardrails.blockedPatterns',
          ws.key,
        ],
        ['/v1/api-keys', `{"name": ${hostile}}`, 'name', ws.key],
        [
          '/v1/webhooks',
          `{"url": "https://a.example.com/h", "events": [${hostile}]}`,
          'events',
          ws.key,
        ],
      ];
      for (const [path, text, field, key] of cases) {
        expectFieldError(await raw('post', path, text, key), field);
      }
      expect(await tableCounts()).toEqual(before);
    });

    const openData = () =>
      '{"__proto__": {"polluted": true}, "constructor": {"name": "data"}, "prototype": [1, 2], ' +
      '"toString": "text", "hasOwnProperty": 0, ' +
      '"nested": {"__proto__": null, "constructor": "c", "list": [{"__proto__": {"x": 1}}]}}';

    it('keeps them as data in run input: stored, returned, listed and visible to a transform step, never a prototype', async () => {
      const definitionId = await createDefinition(t.http, ws.key, [
        {
          type: 'task',
          name: 'look',
          handler: 'transform',
          config: {
            expression:
              '{"keys": $keys($), "proto": $lookup($, "__proto__"), "ctor": $lookup($, "constructor"), ' +
              '"nestedKeys": $keys(nested), "inherited": $.polluted}',
          },
        },
      ]);
      const input = JSON.parse(openData()) as Record<string, unknown>;
      const created = await raw(
        'post',
        '/v1/workflow-runs',
        `{"definitionId": "${definitionId}", "input": ${openData()}}`,
      );
      expect(created.status).toBe(201);
      expect(canonical(created.body.data.input)).toEqual(canonical(input));
      const done = await waitForRun(t.http, ws.key, created.body.data.id, 'COMPLETED');
      expect(canonical(done.input)).toEqual(canonical(input));
      const list = await t.http.get('/v1/workflow-runs?pageSize=100').set('x-api-key', ws.key);
      const listed = (list.body.data as Array<{ id: string; input: unknown }>).find(
        (r) => r.id === done.id,
      );
      expect(canonical(listed?.input)).toEqual(canonical(input));
      const look = (done.output as { look: Record<string, unknown> }).look;
      expect([...(look.keys as string[])].sort()).toEqual(Object.keys(input).sort());
      expect(look.proto).toEqual({ polluted: true });
      expect(look.ctor).toEqual({ name: 'data' });
      expect([...(look.nestedKeys as string[])].sort()).toEqual([
        '__proto__',
        'constructor',
        'list',
      ]);
      // Had __proto__ become the state's prototype, $.polluted would have found it.
      expect(look.inherited).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    });

    it('keeps them in task config, tool parameter schemas and jsonSchema guardrails of a definition', async () => {
      const data = JSON.parse(openData()) as Record<string, unknown>;
      const steps: Step[] = [
        { type: 'task', name: 'cfg', handler: 'noop', config: data },
        {
          type: 'llm',
          name: 'l',
          model: 'openai:gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          tools: [
            {
              name: 't',
              handler: 'noop',
              parameters: JSON.parse(
                '{"type": "object", "properties": {"__proto__": {"type": "string"}, "constructor": {"type": "number"}}}',
              ),
            },
          ],
          guardrails: {
            jsonSchema: JSON.parse(
              '{"type": "object", "required": ["prototype"], "__proto__": {}}',
            ),
          },
        },
      ];
      // JSON.parse makes __proto__ an own key and JSON.stringify writes own keys: sent as written.
      const text = JSON.stringify({
        name: `wf-${randomBytes(4).toString('hex')}`,
        version: '1',
        steps,
      });
      expect(text).toContain('"__proto__":{"polluted":true}');
      const res = await raw('post', '/v1/workflow-definitions', text);
      expect(res.status).toBe(201);
      const got = await t.http
        .get(`/v1/workflow-definitions/${res.body.data.id}`)
        .set('x-api-key', ws.key);
      expect(canonical(got.body.data.steps)).toEqual(canonical(steps));
    });

    it('keeps them in a resume payload and an editedContent, which reach the run state as given', async () => {
      const definitionId = await createDefinition(t.http, ws.key, [
        { type: 'external_event', name: 'paid', signalType: 'payment' },
        { type: 'approval', name: 'review', contentKey: 'doc' },
      ]);
      const runId = await startRun(t.http, ws.key, definitionId, { doc: { text: 'draft' } });
      await waitForRun(t.http, ws.key, runId, 'WAITING');
      const resumed = await raw(
        'post',
        `/v1/workflow-runs/${runId}/resume`,
        `{"signalType": "payment", "payload": ${openData()}}`,
      );
      expect(resumed.status).toBe(200);
      await waitForRun(t.http, ws.key, runId, 'PAUSED');
      const [request] = (
        await t.http.get('/v1/approval-requests?pending=true').set('x-api-key', ws.key)
      ).body.data as Array<{ id: string; workflowRunId: string }>;
      expect(request.workflowRunId).toBe(runId);
      const decided = await raw(
        'post',
        `/v1/approval-requests/${request.id}/decide`,
        `{"decision": "edited", "editedContent": ${openData()}}`,
      );
      expect(decided.status).toBe(200);
      const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
      const data = JSON.parse(openData()) as unknown;
      const output = done.output as { paid: { payload: unknown }; doc: unknown };
      expect(canonical(output.paid.payload)).toEqual(canonical(data));
      expect(canonical(output.doc)).toEqual(canonical(data));
      expect(Object.prototype).not.toHaveProperty('polluted');
    });
  });
});
