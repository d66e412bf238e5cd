import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type TestAgent from 'supertest/lib/agent';
import { CLAIM_STEPS, CREATE_RUNS } from '../src/queue/queue.sql';
import { RUN_DETAILS } from '../src/runs/runs.repository';
import { CLAIM_DELIVERIES } from '../src/webhooks/webhook-sender.sql';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey } from './support/factories';
import { startFakeOpenAi, type FakeLlmServer } from './support/fake-llm';
import { checkedAgent } from './support/openapi-check';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import {
  SPAN_KIND,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from './support/otlp-receiver';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { waitFor } from './support/wait';
import { createDefinition, getRun, waitForRun } from './support/workflows';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const HTTP_SCOPE = '@opentelemetry/instrumentation-http';

/** A caller's W3C traceparent (sampled), with its ids. */
function callerContext(): { traceId: string; spanId: string; header: string } {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/** The trace id of a `traceparent` header, or undefined. */
function traceIdOf(header: unknown): string | undefined {
  return typeof header === 'string'
    ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(header)?.[1]
    : undefined;
}

/**
 * OpenTelemetry tracing of the real service process (`node dist/main.js`) exporting to a real
 * OTLP/HTTP receiver on loopback (protobuf, the default protocol), with a real http task target, a
 * real fake LLM provider and a real HTTPS webhook receiver: the span structure of one run, the
 * traceparent stored with the run and sent to the targets, and what happens with tracing off or a
 * collector that cannot be reached.
 */
describe('tracing (OpenTelemetry)', () => {
  const started: ServiceProcess[] = [];
  let otlp: OtlpReceiver;
  let llm: FakeLlmServer;
  let hooks: HttpsReceiver;
  let hookCount = 0;

  async function launch(env: Record<string, string>): Promise<{
    service: ServiceProcess;
    http: TestAgent;
    db: string;
  }> {
    const db = await createTestDatabase();
    const service = startService({
      env: {
        DATABASE_URL: db,
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '100',
        EXECUTOR_CONCURRENCY: '4',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        NODE_EXTRA_CA_CERTS: hooks.certificate.certFile,
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        // The SDK's own batch settings: export within 100 ms instead of 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...env,
      },
    });
    started.push(service);
    await waitUntilReady(service, 30_000);
    return { service, http: checkedAgent(service.baseUrl), db };
  }

  /** A workspace with a key and a webhook for workflow.completed pointed at the HTTPS receiver. */
  async function tenant(http: TestAgent): Promise<{ key: string; hookPath: string }> {
    const { key } = await createWorkspaceWithKey(http);
    const hookPath = `/hook-${++hookCount}`;
    const res = await http
      .post('/v1/webhooks')
      .set('x-api-key', key)
      .send({ url: hooks.route(hookPath), events: ['workflow.completed'] });
    expect(res.status).toBe(201);
    hooks.setSecret(hookPath, res.body.data.secret as string);
    return { key, hookPath };
  }

  async function storedTraceparent(db: string, runId: string): Promise<string | null> {
    const client = new Client({ connectionString: db });
    await client.connect();
    try {
      const res = await client.query<{ traceparent: string | null }>(
        'SELECT traceparent FROM workflow_runs WHERE id = $1',
        [runId],
      );
      return res.rows[0].traceparent;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    llm = await startFakeOpenAi();
    hooks = await startHttpsReceiver();
  });

  afterAll(async () => {
    for (const s of started.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
    await otlp.close();
    await llm.close();
    await hooks.close();
  });

  describe('with an OTLP endpoint', () => {
    let service: ServiceProcess;
    let http: TestAgent;
    let db: string;

    beforeAll(async () => {
      ({ service, http, db } = await launch({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token',
      }));
    });

    it('says so at start-up', () => {
      const line = logLines(service).find((l) => String(l.msg).startsWith('tracing on'));
      expect(line?.msg).toBe(
        `tracing on: spans to ${otlp.endpoint}/v1/traces (http/protobuf), ` +
          'service workflow-orchestrator, sampler parentbased_always_on',
      );
    });

    it('exports the spans of a run: the request in the caller trace, each step a linked trace of its own, queries, the LLM call, outgoing HTTP and the webhook delivery', async () => {
      const { key, hookPath } = await tenant(http);
      const targetPath = `/publish-${hex(4)}`;
      llm.script('gpt-traced', { text: 'a draft', inputTokens: 12, outputTokens: 7 });
      const definitionId = await createDefinition(http, key, [
        {
          type: 'task',
          name: 'publish',
          handler: 'http',
          config: { url: `${llm.origin}${targetPath}`, method: 'POST', body: { hello: 'world' } },
        },
        {
          type: 'llm',
          name: 'draft',
          model: 'openai:gpt-traced',
          messages: [{ role: 'user', content: 'Write a draft' }],
        },
        // Parks the run on a timer that its step span sets: the wake must not trace the claim.
        { type: 'wait', name: 'nap', durationMs: 50 },
        { type: 'external_event', name: 'go', signalType: 'go' },
      ]);
      const caller = callerContext();
      const created = await http
        .post('/v1/workflow-runs')
        .set('x-api-key', key)
        .set('traceparent', caller.header)
        .send({ definitionId, input: {} });
      expect(created.status).toBe(201);
      const runId = created.body.data.id as string;
      await waitFor('the run to wait for its signal', async () => {
        const run = await getRun(http, key, runId);
        return run.status === 'WAITING' && run.currentStepIndex === 3 ? run : undefined;
      });
      const resumed = await http
        .post(`/v1/workflow-runs/${runId}/resume`)
        .set('x-api-key', key)
        .send({ signalType: 'go', payload: {} });
      expect(resumed.status).toBe(200);
      await waitForRun(http, key, runId, 'COMPLETED');
      const delivered = await waitFor(
        'the workflow.completed delivery',
        () => hooks.received(hookPath)[0],
      );

      // The create request: an HTTP server span named by its route, a child of the caller's span.
      const server = await waitFor(
        'the server span of the create request',
        () => otlp.find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND.SERVER)[0],
      );
      expect(server).toMatchObject({
        name: 'POST /v1/workflow-runs',
        parentSpanId: caller.spanId,
        service: 'workflow-orchestrator',
      });
      expect(server.attributes['http.route']).toBe('/v1/workflow-runs');
      // The run stores the traceparent of that span.
      expect(await storedTraceparent(db, runId)).toBe(`00-${caller.traceId}-${server.spanId}-01`);

      // Its queries are children of it.
      const requestQueries = otlp.find(
        (s) => s.traceId === caller.traceId && s.attributes['db.system.name'] === 'postgresql',
      );
      expect(requestQueries.length).toBeGreaterThan(0);
      for (const q of requestQueries) expect(q.parentSpanId).toBe(server.spanId);

      // Every step execution: a new trace, no parent, linked to the run's traceparent.
      const stepSpans = await waitFor('6 step executions of the run', () => {
        const spans = otlp.find(
          (s) => s.attributes['workflow.run.id'] === runId && s.name.startsWith('step '),
        );
        return spans.length >= 6 ? spans : undefined;
      });
      const byName = (name: string) =>
        stepSpans.filter((s) => s.attributes['workflow.step.name'] === name);
      expect(stepSpans.map((s) => [s.name, s.attributes['workflow.step.outcome']]).sort()).toEqual([
        ['step external_event', 'complete'],
        ['step external_event', 'wait'],
        ['step llm', 'complete'],
        ['step task', 'complete'],
        ['step wait', 'complete'],
        ['step wait', 'wait'],
      ]);
      for (const step of stepSpans) {
        expect(step.parentSpanId).toBe('');
        expect(step.traceId).not.toBe(caller.traceId);
        expect(step.links).toEqual([{ traceId: caller.traceId, spanId: server.spanId }]);
        expect(step.attributes).toMatchObject({
          'workflow.run.id': runId,
          'workflow.step.attempt': 1,
          'workflow.workspace.id': expect.any(String),
        });
      }
      expect(new Set(stepSpans.map((s) => s.traceId)).size).toBe(6);
      const [task] = byName('publish');
      const [llmStep] = byName('draft');
      expect(task.attributes).toMatchObject({
        'workflow.step.type': 'task',
        'workflow.step.index': 0,
      });
      expect(llmStep.attributes).toMatchObject({
        'workflow.step.type': 'llm',
        'workflow.step.index': 1,
      });

      // The http task: a client span below the step span, whose traceparent the target received.
      const outgoing = otlp.find(
        (s) => s.traceId === task.traceId && s.kind === SPAN_KIND.CLIENT && s.scope === HTTP_SCOPE,
      );
      expect(outgoing).toHaveLength(1);
      expect(outgoing[0].parentSpanId).toBe(task.spanId);
      const [targetRequest] = llm.requestsTo(targetPath);
      expect(targetRequest.headers.traceparent).toBe(`00-${task.traceId}-${outgoing[0].spanId}-01`);

      // The LLM call: a child of its step span with the GenAI attributes.
      const [chat] = otlp.find(
        (s) => s.traceId === llmStep.traceId && s.name === 'chat gpt-traced',
      );
      expect(chat).toMatchObject({ parentSpanId: llmStep.spanId, kind: SPAN_KIND.CLIENT });
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-traced',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 7,
        'workflow.llm.cost_usd': 0,
      });

      // The webhook delivery: a new trace linked to the run, its POST carrying the traceparent.
      const delivery = await waitFor(
        'the delivery span',
        () =>
          otlp.find(
            (s) => s.name === 'webhook workflow.completed' && s.links[0]?.spanId === server.spanId,
          )[0],
      );
      expect(delivery.parentSpanId).toBe('');
      expect(delivery.links).toEqual([{ traceId: caller.traceId, spanId: server.spanId }]);
      expect(delivery.attributes).toMatchObject({
        'workflow.webhook.event': 'workflow.completed',
        'workflow.webhook.outcome': 'delivered',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
      });
      const post = await waitFor(
        'the delivery POST span',
        () =>
          otlp.find(
            (s) =>
              s.traceId === delivery.traceId &&
              s.kind === SPAN_KIND.CLIENT &&
              s.scope === HTTP_SCOPE,
          )[0],
      );
      expect(post.parentSpanId).toBe(delivery.spanId);
      expect(delivered.headers.traceparent).toBe(`00-${delivery.traceId}-${post.spanId}-01`);

      // Database spans only inside a request, step or delivery: each one's parent was exported, and
      // the only roots are server, step and delivery spans (no claim or poll query ever makes one).
      const ids = new Set(otlp.spans.map((s) => s.spanId));
      const queries = otlp.find((s) => s.attributes['db.system.name'] === 'postgresql');
      expect(queries.some((q) => q.traceId === task.traceId)).toBe(true);
      for (const q of queries) expect(ids.has(q.parentSpanId)).toBe(true);
      const claims = queries.filter((q) =>
        [CLAIM_STEPS, CLAIM_DELIVERIES].includes(String(q.attributes['db.query.text'])),
      );
      expect(claims).toEqual([]);
      const roots = otlp.find((s) => s.parentSpanId === '' || !ids.has(s.parentSpanId));
      for (const root of roots) {
        const ok =
          root.kind === SPAN_KIND.SERVER ||
          root.name.startsWith('step ') ||
          root.name.startsWith('webhook ');
        expect(ok ? root.name : `unexpected root ${root.name}`).toBe(root.name);
      }

      // Exports carry OTEL_EXPORTER_OTLP_HEADERS.
      expect(otlp.exports[0].headers.authorization).toBe('Bearer collector-token');
      expect(otlp.exports[0].contentType).toBe('application/x-protobuf');
    });

    /**
     * How statements shared by several requests (`owners`: their spans, each in a trace of its own)
     * are traced: each owner's trace holds at most one `spanName` span, below the owner, and
     * the statement's query (its text one of `statements`) at most once: below the owner when the
     * statement was its own, below its `spanName` span when it carried a shared one, and not at all
     * when it rode along (its span then links to the carrier's, in another owner's trace). Every
     * owner is served exactly once. Returns whether any statement was shared.
     */
    function expectSharedStatements(
      owners: ReceivedSpan[],
      spanName: string,
      statements: string[],
    ): boolean {
      const traces = new Set(owners.map((o) => o.traceId));
      expect(traces.size).toBe(owners.length);
      const spans = otlp.find((s) => traces.has(s.traceId));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const batches = spans.filter((s) => s.name === spanName);
      const queries = spans.filter((s) =>
        statements.includes(String(s.attributes['db.query.text'])),
      );
      for (const owner of owners) {
        const inTrace = (list: ReceivedSpan[]) => list.filter((s) => s.traceId === owner.traceId);
        const [batch, ...moreBatches] = inTrace(batches);
        const ownQueries = inTrace(queries);
        expect(moreBatches).toEqual([]);
        // A statement shows once in the trace of an owner it served, never in another one's.
        expect(ownQueries.length).toBeLessThanOrEqual(1);
        if (!batch) {
          // A statement of its own: its query below the owner's span, as without batching.
          expect(ownQueries).toHaveLength(1);
          expect(ownQueries[0].parentSpanId).toBe(owner.spanId);
          continue;
        }
        expect(batch.parentSpanId).toBe(owner.spanId);
        expect(batch.attributes['workflow.batch.size']).toBeGreaterThan(1);
        if (ownQueries.length === 1) {
          // The owner whose trace holds the shared statement's query.
          expect(ownQueries[0].parentSpanId).toBe(batch.spanId);
          expect(batch.links).toEqual([]);
        } else {
          // The others: linked to that span, in the trace of another owner.
          expect(batch.links).toHaveLength(1);
          const carrier = byId.get(batch.links[0].spanId);
          expect(carrier?.name).toBe(spanName);
          expect(carrier?.traceId).not.toBe(owner.traceId);
          expect(queries.filter((q) => q.parentSpanId === carrier?.spanId)).toHaveLength(1);
        }
      }
      // Each query served as many owners as its statement carried: all of them, once.
      const carried = queries.map((q) => {
        const parent = byId.get(q.parentSpanId);
        return parent?.name === spanName ? Number(parent.attributes['workflow.batch.size']) : 1;
      });
      expect(carried.reduce((a, b) => a + b, 0)).toBe(owners.length);
      return batches.length > 0;
    }

    it.each([
      ['GET one run', 'batch run.read', RUN_DETAILS],
      ['POST a run', 'batch run.create', CREATE_RUNS],
    ])(
      "shows a statement that several requests share (%s) in each one's trace, its query in one of them",
      async (route, spanName, statement) => {
        const { key } = await createWorkspaceWithKey(http);
        const definitionId = await createDefinition(http, key, [
          { type: 'external_event', name: 'hold', signalType: 'go' },
        ]);
        const first = await http
          .post('/v1/workflow-runs')
          .set('x-api-key', key)
          .send({ definitionId, input: {} });
        expect(first.status).toBe(201);
        const runId = first.body.data.id as string;
        const send = (traceparent: string) =>
          route === 'GET one run'
            ? http
                .get(`/v1/workflow-runs/${runId}`)
                .set('x-api-key', key)
                .set('traceparent', traceparent)
            : http
                .post('/v1/workflow-runs')
                .set('x-api-key', key)
                .set('traceparent', traceparent)
                .send({ definitionId, input: {} });
        // Bursts of concurrent requests until one statement carried several of them (two statements
        // run at once: from the third request of a burst on, requests wait and go together).
        for (let burst = 1; ; burst++) {
          const callers = Array.from({ length: 30 }, () => callerContext());
          const answers = await Promise.all(callers.map((c) => send(c.header)));
          for (const res of answers) expect(res.status).toBe(route === 'GET one run' ? 200 : 201);
          const traces = new Set(callers.map((c) => c.traceId));
          const servers = await waitFor('the server spans of the burst', () => {
            const found = otlp.find((s) => traces.has(s.traceId) && s.kind === SPAN_KIND.SERVER);
            return found.length === callers.length ? found : undefined;
          });
          if (expectSharedStatements(servers, spanName, [statement])) break;
          if (burst === 10) throw new Error('no statement was shared by two requests in 10 bursts');
        }
      },
    );

    it('puts trace_id and span_id on the log lines written inside a span', async () => {
      const { key } = await createWorkspaceWithKey(http);
      const caller = callerContext();
      const res = await http
        .get('/v1/workflow-runs')
        .set('x-api-key', key)
        .set('traceparent', caller.header);
      expect(res.status).toBe(200);
      const server = await waitFor(
        'the server span of the list request',
        () => otlp.find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND.SERVER)[0],
      );
      expect(server.name).toBe('GET /v1/workflow-runs');
      const line = await waitFor('the access log line', () =>
        logLines(service).find(
          (l) => l.trace_id === caller.traceId && l.msg === 'request completed',
        ),
      );
      expect(line).toMatchObject({ span_id: server.spanId, trace_flags: '01' });
      // Outside any span (the start-up lines) there are none.
      const startup = logLines(service).find((l) => String(l.msg).startsWith('listening on'));
      expect(startup).toBeDefined();
      expect(startup).not.toHaveProperty('trace_id');
    });

    it('names a request that matches no route by its method only, never by its raw URL', async () => {
      const caller = callerContext();
      const res = await http.get(`/no-such-route/${hex(4)}`).set('traceparent', caller.header);
      expect(res.status).toBe(404);
      const server = await waitFor(
        'the server span of the 404',
        () => otlp.find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND.SERVER)[0],
      );
      expect(server.name).toBe('GET');
      expect(server.attributes['http.route']).toBeUndefined();
    });

    it('stores the request span as the run traceparent when the caller sent none, and ignores a malformed one', async () => {
      const { key } = await createWorkspaceWithKey(http);
      const definitionId = await createDefinition(http, key, [
        { type: 'task', name: 'n', handler: 'noop' },
      ]);
      const res = await http
        .post('/v1/workflow-runs')
        .set('x-api-key', key)
        .set('traceparent', 'not-a-traceparent')
        .send({ definitionId, input: {} });
      expect(res.status).toBe(201);
      const stored = await storedTraceparent(db, res.body.data.id as string);
      const traceId = traceIdOf(stored);
      expect(traceId).toBeDefined();
      const server = await waitFor(
        'the server span of the request',
        () => otlp.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER)[0],
      );
      expect(server.parentSpanId).toBe('');
      expect(stored).toBe(`00-${traceId}-${server.spanId}-01`);
    });
  });

  it('exports OTLP/JSON to the traces endpoint under the configured service name', async () => {
    const { http } = await launch({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'orchestrator-json',
    });
    const caller = callerContext();
    const res = await http.get('/v1/workflow-definitions').set('traceparent', caller.header);
    expect(res.status).toBe(401);
    const server = await waitFor(
      'the server span, as JSON',
      () => otlp.find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND.SERVER)[0],
    );
    expect(server).toMatchObject({
      name: 'GET /v1/workflow-definitions',
      parentSpanId: caller.spanId,
      service: 'orchestrator-json',
    });
    expect(otlp.exports.some((e) => e.contentType.startsWith('application/json'))).toBe(true);
  });

  it('exports the spans still queued when it shuts down', async () => {
    // Batches leave every 10 minutes here: only the shutdown's flush can send this one.
    const { service, http } = await launch({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const caller = callerContext();
    expect((await http.get('/v1/workflow-runs').set('traceparent', caller.header)).status).toBe(
      401,
    );
    expect(otlp.find((s) => s.traceId === caller.traceId)).toEqual([]);
    service.child.kill('SIGTERM');
    expect((await service.exited(30_000)).code).toBe(0);
    expect(otlp.find((s) => s.traceId === caller.traceId).map((s) => s.name)).toEqual([
      'GET /v1/workflow-runs',
    ]);
  });

  it('with a collector that cannot be reached: runs to completion, sends traceparent, and logs a warning', async () => {
    const closedPort = await freePort();
    const { service, http } = await launch({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${closedPort}/v1/traces`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
    const { key } = await tenant(http);
    const targetPath = `/closed-${hex(4)}`;
    const definitionId = await createDefinition(http, key, [
      {
        type: 'task',
        name: 'call',
        handler: 'http',
        config: { url: `${llm.origin}${targetPath}` },
      },
      { type: 'wait', name: 'pause', durationMs: 10 },
      { type: 'task', name: 'done', handler: 'noop' },
    ]);
    const res = await http
      .post('/v1/workflow-runs')
      .set('x-api-key', key)
      .send({ definitionId, input: {} });
    expect(res.status).toBe(201);
    await waitForRun(http, key, res.body.data.id as string, 'COMPLETED');
    expect(traceIdOf(llm.requestsTo(targetPath)[0].headers.traceparent)).toBeDefined();
    const warning = await waitFor(
      'a tracing warning in the log',
      () => logLines(service).find((l) => l.level === 40 && String(l.msg).startsWith('tracing:')),
      { timeoutMs: 20_000 },
    );
    expect(warning.context).toBe('Tracing');
    expect(warning.msg).toContain(`ECONNREFUSED 127.0.0.1:${closedPort}`);
    expect(warning).not.toHaveProperty('trace_id');
    expect(service.child.exitCode).toBeNull();
  });

  it('with every step sampled out: runs complete outside any trace, no span and no traceparent leave', async () => {
    const { http, db } = await launch({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_TRACES_SAMPLER: 'always_off',
    });
    const { key, hookPath } = await tenant(http);
    const targetPath = `/sampled-out-${hex(4)}`;
    const model = `gpt-dropped-${hex(3)}`;
    llm.script(model, { text: 'fine', inputTokens: 3, outputTokens: 1 });
    const definitionId = await createDefinition(http, key, [
      {
        type: 'task',
        name: 'call',
        handler: 'http',
        config: { url: `${llm.origin}${targetPath}` },
      },
      { type: 'llm', name: 'ask', model, messages: [{ role: 'user', content: 'hi' }] },
    ]);
    const caller = callerContext();
    const res = await http
      .post('/v1/workflow-runs')
      .set('x-api-key', key)
      .set('traceparent', caller.header)
      .send({ definitionId, input: {} });
    expect(res.status).toBe(201);
    const runId = res.body.data.id as string;
    await waitForRun(http, key, runId, 'COMPLETED');
    const delivered = await waitFor(
      'the workflow.completed delivery',
      () => hooks.received(hookPath)[0],
    );
    // The caller's trace is still stored (its flags say not sampled), for executors that sample.
    expect(traceIdOf((await storedTraceparent(db, runId)) ?? undefined)).toBe(caller.traceId);
    expect(llm.requestsTo(targetPath)[0].headers.traceparent).toBeUndefined();
    expect(delivered.headers.traceparent).toBeUndefined();
    // Give a batch time to leave (100 ms here): nothing of this run's steps or deliveries arrives.
    await new Promise((r) => setTimeout(r, 500));
    const ofRun = otlp.spans.filter(
      (s) =>
        s.traceId === caller.traceId ||
        s.attributes['workflow.run.id'] === runId ||
        s.name === `chat ${model}`,
    );
    expect(ofRun).toEqual([]);
  });

  it('with tracing off: stores a well-formed caller traceparent, sends none to targets, logs no trace ids', async () => {
    const { service, http, db } = await launch({});
    expect(logLines(service).some((l) => String(l.msg).startsWith('tracing on'))).toBe(false);
    const { key, hookPath } = await tenant(http);
    const targetPath = `/off-${hex(4)}`;
    const definitionId = await createDefinition(http, key, [
      {
        type: 'task',
        name: 'call',
        handler: 'http',
        config: { url: `${llm.origin}${targetPath}` },
      },
    ]);
    const caller = callerContext();
    const traced = await http
      .post('/v1/workflow-runs')
      .set('x-api-key', key)
      .set('traceparent', caller.header)
      .send({ definitionId, input: {} });
    expect(traced.status).toBe(201);
    const runId = traced.body.data.id as string;
    expect(await storedTraceparent(db, runId)).toBe(caller.header);
    const malformed = await http
      .post('/v1/workflow-runs')
      .set('x-api-key', key)
      // An all-zero trace id is invalid (W3C Trace Context).
      .set('traceparent', `00-${'0'.repeat(32)}-${hex(8)}-01`)
      .send({ definitionId, input: {} });
    expect(malformed.status).toBe(201);
    expect(await storedTraceparent(db, malformed.body.data.id as string)).toBeNull();

    await waitForRun(http, key, runId, 'COMPLETED');
    const delivered = await waitFor(
      'the workflow.completed delivery',
      () => hooks.received(hookPath)[0],
    );
    expect(delivered.headers.traceparent).toBeUndefined();
    expect(llm.requestsTo(targetPath)[0].headers.traceparent).toBeUndefined();
    expect(logLines(service).some((l) => 'trace_id' in l)).toBe(false);
  });
});
