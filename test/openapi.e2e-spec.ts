import { Validator } from '@seriousme/openapi-schema-validator';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApiClient, type CreateDefinitionRequest } from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import { checkAnswer, checkedAgent, checkedFetch } from './support/openapi-check';

const ROOT = path.resolve(__dirname, '..');
const REGENERATE = 'run `npm run openapi:generate` and commit client/';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
}
interface Document {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: unknown; responses: Record<string, { content?: unknown }> }>
  >;
  components: { schemas: Record<string, Schema> };
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let served: Document;

  beforeAll(async () => {
    t = await createTestApp();
    // The documentation itself is not an API answer: fetched without the check.
    const res = await request(t.baseUrl).get('/openapi.json');
    expect(res.status).toBe(200);
    served = res.body as Document;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is a valid OpenAPI 3.0 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(served) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.0');
  });

  it('is the committed client/openapi.json', async () => {
    const committed = JSON.parse(
      await readFile(path.join(ROOT, 'client/openapi.json'), 'utf8'),
    ) as unknown;
    if (JSON.stringify(committed) !== JSON.stringify(served)) {
      expect({ note: REGENERATE, document: committed }).toEqual({
        note: REGENERATE,
        document: served,
      });
    }
  });

  it('gives the committed client/schema.ts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wf-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(served));
      const generated = execFileSync(process.execPath, ['scripts/openapi.mjs', 'types', file], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      const committed = await readFile(path.join(ROOT, 'client/schema.ts'), 'utf8');
      if (generated !== committed) {
        expect({ note: REGENERATE, types: committed }).toEqual({
          note: REGENERATE,
          types: generated,
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('declares every count, index and token number of the contract as an integer', () => {
    const integers: Record<string, string[]> = {
      PageMeta: ['page', 'pageSize', 'total', 'totalPages'],
      RunDto: ['currentStepIndex'],
      StepRunDto: ['stepIndex', 'attempt'],
      RunCostDto: ['totalInputTokens', 'totalOutputTokens'],
      CostCallDto: ['inputTokens', 'outputTokens'],
      CostSummaryDto: ['totalInputTokens', 'totalOutputTokens', 'totalRuns'],
      ModelCostDto: ['inputTokens', 'outputTokens', 'calls'],
      WebhookDeliveryDto: ['attempts', 'lastStatusCode'],
    };
    for (const [schema, fields] of Object.entries(integers)) {
      for (const field of fields) {
        expect([
          schema,
          field,
          served.components.schemas[schema].properties?.[field]?.type,
        ]).toEqual([schema, field, 'integer']);
      }
    }
    for (const [schema, field] of [
      ['RunCostDto', 'totalCostUsd'],
      ['CostCallDto', 'costUsd'],
      ['CostSummaryDto', 'totalCostUsd'],
    ]) {
      expect(served.components.schemas[schema].properties?.[field]?.type).toBe('number');
    }
  });

  it('declares a JSON body for every answer of every operation, the probes included', () => {
    // The one exception: the live event stream's 200 is text/event-stream, and its 204 has no body.
    const stream = '/v1/workflow-runs/{id}/events/stream';
    const content = (template: string, status: string) => {
      if (template === stream && status === '200') {
        return { 'text/event-stream': { schema: { type: 'string' } } };
      }
      if (template === stream && status === '204') return undefined;
      return { 'application/json': { schema: expect.any(Object) } };
    };
    for (const [template, item] of Object.entries(served.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          expect([method, template, status, response.content]).toEqual([
            method,
            template,
            status,
            content(template, status),
          ]);
        }
      }
    }
    const live = served.paths['/live'].get.responses['200'].content;
    expect(live).toEqual({
      'application/json': {
        schema: expect.objectContaining({
          required: ['success', 'data'],
          properties: expect.objectContaining({ data: { $ref: '#/components/schemas/LiveDto' } }),
        }),
      },
    });
  });

  it('declares 400, 413 and 415 on every operation that takes a body, with their error codes', () => {
    const withBody = Object.entries(served.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.requestBody)
        .map(([method, operation]) => ({ name: `${method} ${template}`, operation })),
    );
    expect(withBody.length).toBeGreaterThanOrEqual(7);
    for (const { name, operation } of withBody) {
      const declared = Object.keys(operation.responses);
      expect([name, ['400', '413', '415'].filter((s) => declared.includes(s))]).toEqual([
        name,
        ['400', '413', '415'],
      ]);
    }
    expect(served.components.schemas.PayloadTooLargeEnvelope).toEqual(
      expect.objectContaining({
        allOf: [
          { $ref: '#/components/schemas/ErrorEnvelope' },
          expect.objectContaining({
            properties: {
              error: expect.objectContaining({
                properties: { code: { type: 'string', enum: ['PAYLOAD_TOO_LARGE'] } },
              }),
            },
          }),
        ],
      }),
    );
  });
});

describe('the check of answers against the document', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ key } = await createWorkspaceWithKey(t.http));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A real answer, taken without the check so that the test can alter it. */
  const current = () => request(t.baseUrl).get('/v1/workspaces/current').set('x-api-key', key);

  it('passes a real answer and names the operation and status it checked', async () => {
    const res = await current();
    expect(checkAnswer('GET', `${t.baseUrl}/v1/workspaces/current`, res)).toBe(
      'GET /v1/workspaces/current 200',
    );
  });

  it('fails a property the schema does not declare, naming the operation, status and property', async () => {
    const res = await current();
    (res.body as { data: Record<string, unknown> }).data.plan = 'pro';
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/workspaces/current`, res)).toThrow(
      /GET \/v1\/workspaces\/current \(WorkspacesController_current\) answered 200 .*must NOT have additional properties \(plan\)/,
    );
  });

  it('fails a missing required property and a value of the wrong type', async () => {
    const res = await current();
    const data = (res.body as { data: Record<string, unknown> }).data;
    delete data.slug;
    data.createdAt = 'yesterday';
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/workspaces/current`, res)).toThrow(
      /must have required property 'slug'.*createdAt must match format "date-time"/,
    );
  });

  it('fails a fraction where the document declares an integer', async () => {
    const res = await request(t.baseUrl).get('/v1/workflow-runs').set('x-api-key', key);
    expect(res.status).toBe(200);
    (res.body as { meta: { total: number } }).meta.total = 1.5;
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/workflow-runs?page=1`, res)).toThrow(
      /RunsController_list\) answered 200 .*\/meta\/total must be integer/,
    );
  });

  it('fails a status the operation does not declare', async () => {
    const res = await current();
    res.status = 418;
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/workspaces/current`, res)).toThrow(
      /WorkspacesController_current\) answered 418, which it does not declare \(declared: 200, 401, 429, 500, 503\)/,
    );
  });

  it('fails an error answer whose code is not the one of its status', async () => {
    const res = await request(t.baseUrl).get('/v1/workspaces/current');
    expect(res.status).toBe(401);
    (res.body as { error: { code: string } }).error.code = 'NOT_FOUND';
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/workspaces/current`, res)).toThrow(
      /answered 401 .*\/error\/code must be equal to one of the allowed values \(\["AUTH_ERROR"\]\)/,
    );
  });

  it('holds JSON answers on unknown routes to the error envelope, and exempts what is not the API', async () => {
    const unknown = await request(t.baseUrl).get('/v1/nothing-here').set('x-api-key', key);
    expect(unknown.status).toBe(404);
    expect(checkAnswer('GET', `${t.baseUrl}/v1/nothing-here`, unknown)).toBeUndefined();
    (unknown.body as { success: boolean }).success = true;
    expect(() => checkAnswer('GET', `${t.baseUrl}/v1/nothing-here`, unknown)).toThrow(
      /GET \/v1\/nothing-here \(an undocumented path\) answered 404 with a JSON body that is not the error envelope/,
    );
    const docs = await request(t.baseUrl).get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect(checkAnswer('GET', `${t.baseUrl}/docs`, docs)).toBeUndefined();
  });

  describe('through the checked agent and the checked fetch', () => {
    let liar: Server;
    let liarUrl: string;

    beforeAll(async () => {
      // A real HTTP server on loopback that answers like the service, but with an integer as a string.
      liar = createServer((_req, res) => {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(
          JSON.stringify({
            success: true,
            data: [],
            meta: { page: 1, pageSize: '20', total: 0, totalPages: 0 },
          }),
        );
      });
      await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
      liarUrl = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => liar.close(resolve));
    });

    it('fails the request that received a mismatching answer', async () => {
      await expect(checkedAgent(liarUrl).get('/v1/workflow-runs')).rejects.toThrow(
        /GET \/v1\/workflow-runs \(RunsController_list\) answered 200 .*\/meta\/pageSize must be integer/,
      );
      await expect(checkedFetch(`${liarUrl}/v1/workflow-runs`)).rejects.toThrow(
        /RunsController_list\) answered 200 .*\/meta\/pageSize must be integer/,
      );
    });
  });
});

describe('the typed client', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a workspace, a key, a definition and a run, and reads them back, every answer checked', async () => {
    const open = createApiClient({ baseUrl: t.baseUrl, fetch: checkedFetch });
    const workspace = await open.POST('/v1/workspaces', {
      body: { name: 'Typed', slug: `typed-${Date.now().toString(36)}` },
    });
    expect(workspace.response.status).toBe(201);
    const workspaceId = workspace.data!.data.id;
    const created = await open.POST('/v1/api-keys', { body: { name: 'typed', workspaceId } });
    expect(created.response.status).toBe(201);
    expect(created.data!.data.key).toMatch(/^svc_/);

    const api = createApiClient({
      baseUrl: t.baseUrl,
      apiKey: created.data!.data.key,
      fetch: checkedFetch,
    });
    const body: CreateDefinitionRequest = {
      name: 'typed-client',
      version: '1',
      steps: [{ type: 'task', name: 'noop', handler: 'noop' }],
    };
    const definition = await api.POST('/v1/workflow-definitions', { body });
    expect(definition.data?.data.steps).toEqual(body.steps);

    const run = await api.POST('/v1/workflow-runs', {
      body: { definitionId: definition.data!.data.id, input: { n: 1 } },
    });
    expect(run.response.status).toBe(201);
    const read = await api.GET('/v1/workflow-runs/{id}', {
      params: { path: { id: run.data!.data.id } },
    });
    expect(read.data?.data).toEqual(
      expect.objectContaining({ id: run.data!.data.id, workspaceId, input: { n: 1 } }),
    );
    expect(Number.isInteger(read.data?.data.currentStepIndex)).toBe(true);

    const page = await api.GET('/v1/workflow-runs', { params: { query: { pageSize: 1 } } });
    expect(page.data?.meta).toEqual({ page: 1, pageSize: 1, total: 1, totalPages: 1 });

    const missing = await api.GET('/v1/workflow-definitions/{id}', {
      params: { path: { id: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('NOT_FOUND');
  });
});

describe('the record of exercised operations', () => {
  it('names each documented operation no checked answer reached with each of its success statuses', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wf-openapi-seen-test-'));
    try {
      await writeFile(
        path.join(dir, '1.txt'),
        'GET /live 200\nPOST /v1/workflow-runs 201\nGET /v1/workflow-runs 400\n',
      );
      const document = {
        paths: {
          '/live': { get: { responses: { 200: {} } } },
          '/v1/workflow-runs': {
            post: { responses: { 200: {}, 201: {}, 400: {} } },
            get: { responses: { 200: {}, 400: {} } },
          },
        },
      };
      const script =
        "import('./test/support/openapi-coverage.mjs').then(async (m) => " +
        `console.log(JSON.stringify(await m.unexercisedOperations(${JSON.stringify(document)}, ` +
        `${JSON.stringify(dir)}))))`;
      const out = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual([
        'POST /v1/workflow-runs (200)',
        'GET /v1/workflow-runs (200)',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
