import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { RunEventStreams } from '../src/runs/run-event-streams';
import { Client } from 'pg';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import { openEventStream, parseEventStream, type SseClient } from './support/sse-client';
import { waitFor } from './support/wait';
import {
  createDefinition,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
} from './support/workflows';

const TERMINAL = ['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED'];

/** The stream's messages as events, checking the wire fields against the event they carry. */
function eventsOf(client: Pick<SseClient, 'messages'>): EventView[] {
  return client.messages.map((m) => {
    const event = JSON.parse(m.data) as EventView;
    expect(m.event).toBe(event.eventType);
    expect(m.id).toMatch(/^\d+$/);
    return event;
  });
}

function idsOf(client: Pick<SseClient, 'messages'>): number[] {
  return client.messages.map((m) => Number(m.id));
}

describe('live run events (GET /v1/workflow-runs/:id/events/stream)', () => {
  /** Executor on, default stream settings. */
  let t: TestApp;
  /** API only, same database: tight caps, a 200 ms heartbeat, a 16 KiB buffer cap. */
  let tight: TestApp;
  let a: WorkspaceWithKey;
  let b: WorkspaceWithKey;
  let defs: Record<'three' | 'signal' | 'loop' | 'fail', string>;
  const open: SseClient[] = [];
  const processes: ServiceProcess[] = [];

  /** Opens a stream on `t` (or `app`) and remembers it so that it is closed after the test. */
  async function stream(
    runId: string,
    options: { key?: string; lastEventId?: string; query?: string; app?: TestApp } = {},
  ): Promise<SseClient> {
    const client = await openEventStream((options.app ?? t).baseUrl, runId, {
      key: 'key' in options ? options.key : a.key,
      lastEventId: options.lastEventId,
      query: options.query,
    });
    open.push(client);
    return client;
  }

  beforeAll(async () => {
    t = await createTestApp({ MAX_SIGNAL_PAYLOAD_BYTES: '1048576' });
    tight = await createTestApp(
      {
        EXECUTOR_ENABLED: 'false',
        SSE_MAX_STREAMS_PER_WORKSPACE: '2',
        SSE_MAX_STREAMS: '3',
        SSE_HEARTBEAT_MS: '200',
        SSE_MAX_BUFFERED_BYTES: '16384',
      },
      { databaseUrl: t.databaseUrl },
    );
    a = await createWorkspaceWithKey(t.http);
    b = await createWorkspaceWithKey(t.http);
    defs = {
      three: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'one', handler: 'noop' },
        { type: 'task', name: 'two', handler: 'noop' },
        { type: 'task', name: 'three', handler: 'noop' },
      ]),
      signal: await createDefinition(t.http, a.key, [
        { type: 'task', name: 'prepare', handler: 'noop' },
        { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
        { type: 'task', name: 'finish', handler: 'noop' },
      ]),
      // Waits for a signal, forever: each resume records a SIGNAL_RECEIVED with its payload.
      loop: await createDefinition(t.http, a.key, [
        { type: 'external_event', name: 'chunk', signalType: 'chunk', outputKey: 'last' },
        { type: 'condition', name: 'again', expression: 'true', then: 'chunk' },
      ]),
      fail: await createDefinition(t.http, a.key, [
        {
          type: 'task',
          name: 'broken',
          handler: 'transform',
          config: { expression: '$error("broken on purpose")' },
          retry: { maxAttempts: 1 },
        },
      ]),
    };
  });

  afterEach(async () => {
    for (const client of open.splice(0)) client.close();
    for (const p of processes.splice(0)) p.kill();
    // Every stream of the test is gone before the next one counts slots.
    await waitFor('the event streams of the test to close', () =>
      t.app.get(RunEventStreams).open + tight.app.get(RunEventStreams).open === 0
        ? true
        : undefined,
    );
  });

  afterAll(async () => {
    await tight?.close();
    await t?.close();
  });

  it('streams a finished run: every event in order, as the events list answers it, then ends', async () => {
    const runId = await startRun(t.http, a.key, defs.three);
    await waitForRun(t.http, a.key, runId, 'COMPLETED');
    const listed = await runEvents(t.http, a.key, runId);

    const res = await t.http
      .get(`/v1/workflow-runs/${runId}/events/stream`)
      .set('x-api-key', a.key)
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (text += chunk));
        r.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.headers['content-encoding']).toBeUndefined();
    const parsed = parseEventStream(res.body as string);
    expect(parsed.retry).toBe(3000);
    expect(eventsOf(parsed)).toEqual(listed);
    expect(parsed.messages.map((m) => m.event)).toEqual([
      'WORKFLOW_STARTED',
      'STEP_STARTED',
      'STEP_COMPLETED',
      'STEP_STARTED',
      'STEP_COMPLETED',
      'STEP_STARTED',
      'STEP_COMPLETED',
      'WORKFLOW_COMPLETED',
    ]);
    const ids = idsOf(parsed);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers 204 to a reconnection after the terminal event of a finished run', async () => {
    const runId = await startRun(t.http, a.key, defs.three);
    await waitForRun(t.http, a.key, runId, 'COMPLETED');
    const first = await stream(runId);
    await first.waitForEnd();
    const last = first.messages[first.messages.length - 1];
    expect(last.event).toBe('WORKFLOW_COMPLETED');

    const again = await t.http
      .get(`/v1/workflow-runs/${runId}/events/stream`)
      .set('x-api-key', a.key)
      .set('Last-Event-ID', last.id!);
    expect(again.status).toBe(204);
    expect(again.text).toBe('');
  });

  it('delivers the events of a waiting run as they are recorded, and ends after its terminal event', async () => {
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const client = await stream(runId);
    expect(client.status).toBe(200);
    await client.waitForEvent('STEP_STARTED');
    await waitFor('the stream to reach the parked step', () =>
      client.messages.length === 4 ? true : undefined,
    );
    expect(client.isEnded()).toBe(false);

    const resumed = await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', a.key)
      .send({ signalType: 'payment.received', payload: { amount: 120 } });
    expect(resumed.status).toBe(200);
    // Well within the 30 s safety re-read: only the NOTIFY of the statements can bring them this fast.
    const signal = await client.waitForEvent('SIGNAL_RECEIVED', 5000);
    expect(JSON.parse(signal.data).payload).toEqual({
      signalType: 'payment.received',
      stepName: 'await-payment',
      payload: { amount: 120 },
    });
    await client.waitForEvent('WORKFLOW_COMPLETED', 5000);
    await client.waitForEnd(5000);
    expect(eventsOf(client)).toEqual(await runEvents(t.http, a.key, runId));
  });

  it('delivers a cancellation at once and ends the stream after WORKFLOW_CANCELLED', async () => {
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const client = await stream(runId);
    await client.waitForMessages(4);
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', a.key).expect(200);
    await client.waitForEvent('WORKFLOW_CANCELLED', 5000);
    await client.waitForEnd(5000);
    expect(eventsOf(client)).toEqual(await runEvents(t.http, a.key, runId));
  });

  it('resumes after Last-Event-ID (header or query parameter) without gaps or repeats', async () => {
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const first = await stream(runId);
    const seen = await first.waitForMessages(4);
    first.close();

    await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', a.key)
      .send({ signalType: 'payment.received' })
      .expect(200);
    await waitForRun(t.http, a.key, runId, 'COMPLETED');
    const all = await runEvents(t.http, a.key, runId);

    // Header: the rest, exactly.
    const second = await stream(runId, { lastEventId: seen[1].id });
    await second.waitForEnd();
    expect([...seen.slice(0, 2).map((m) => JSON.parse(m.data)), ...eventsOf(second)]).toEqual(all);
    // Query parameter, for clients that cannot set headers.
    const third = await stream(runId, { query: `?lastEventId=${seen[3].id}` });
    await third.waitForEnd();
    expect(eventsOf(third)).toEqual(all.slice(4));
    // Both: the header wins (EventSource sends it on reconnection, with the first URL).
    const fourth = await stream(runId, { lastEventId: seen[2].id, query: '?lastEventId=0' });
    await fourth.waitForEnd();
    expect(eventsOf(fourth)).toEqual(all.slice(3));
  });

  it('goes on past the WORKFLOW_FAILED of a run that was retried, and ends after the last one', async () => {
    const runId = await startRun(t.http, a.key, defs.fail);
    await waitForRun(t.http, a.key, runId, 'FAILED');
    await t.http.post(`/v1/workflow-runs/${runId}/retry`).set('x-api-key', a.key).expect(200);
    await waitForRun(t.http, a.key, runId, 'FAILED');
    await waitFor('the second WORKFLOW_FAILED', async () => {
      const events = await runEvents(t.http, a.key, runId);
      return events.filter((e) => e.eventType === 'WORKFLOW_FAILED').length === 2
        ? true
        : undefined;
    });

    const client = await stream(runId);
    await client.waitForEnd();
    const types = client.messages.map((m) => m.event);
    expect(types.filter((type) => type === 'WORKFLOW_FAILED')).toHaveLength(2);
    expect(types.indexOf('STEP_RETRYING')).toBeGreaterThan(types.indexOf('WORKFLOW_FAILED'));
    expect(types[types.length - 1]).toBe('WORKFLOW_FAILED');
    expect(eventsOf(client)).toEqual(await runEvents(t.http, a.key, runId));
  });

  it("answers 404 for another workspace's run, an unknown id and a malformed id, 401 without a key", async () => {
    const runId = await startRun(t.http, a.key, defs.three);
    for (const [id, key] of [
      [runId, b.key],
      [randomUUID(), a.key],
      ['not-a-uuid', a.key],
    ]) {
      const client = await stream(id, { key });
      expect(client.status).toBe(404);
      expect(client.json).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: 'workflow run not found' },
      });
      // The same answer as the events list.
      const listed = await t.http.get(`/v1/workflow-runs/${id}/events`).set('x-api-key', key);
      expect(listed.status).toBe(404);
      expect(listed.body).toEqual(client.json);
    }
    const anonymous = await stream(runId, { key: undefined });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({
      success: false,
      error: { code: 'AUTH_ERROR', message: 'missing x-api-key header' },
    });
  });

  it('answers 400 for a Last-Event-ID or lastEventId that is not an event id', async () => {
    const runId = await startRun(t.http, a.key, defs.three);
    const header = await stream(runId, { lastEventId: '12abc' });
    expect(header.status).toBe(400);
    expect(header.json?.error?.code).toBe('VALIDATION_ERROR');
    expect(header.json?.error?.message).toContain('Last-Event-ID');
    const query = await stream(runId, { query: '?lastEventId=-1' });
    expect(query.status).toBe(400);
    expect(query.json?.error?.message).toContain('lastEventId');
  });

  it('caps open streams per workspace and per process (429), and a closed stream frees its slot', async () => {
    const waiting = async (key: string, def: string) => {
      const id = await startRun(t.http, key, def);
      await waitForRun(t.http, key, id, 'WAITING');
      return id;
    };
    const bSignal = await createDefinition(t.http, b.key, [
      { type: 'external_event', name: 'wait', signalType: 'go' },
    ]);
    const c = await createWorkspaceWithKey(t.http);
    const cSignal = await createDefinition(t.http, c.key, [
      { type: 'external_event', name: 'wait', signalType: 'go' },
    ]);
    const runA = await waiting(a.key, defs.signal);
    const runB = await waiting(b.key, bSignal);
    const runC = await waiting(c.key, cSignal);

    const a1 = await stream(runA, { app: tight });
    const a2 = await stream(runA, { app: tight });
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const a3 = await stream(runA, { app: tight });
    expect(a3.status).toBe(429);
    expect(a3.headers.get('retry-after')).toBe('5');
    expect(a3.json?.error).toEqual({
      code: 'RATE_LIMIT_ERROR',
      message: 'too many open event streams for this workspace (at most 2)',
      details: { limit: { name: 'SSE_MAX_STREAMS_PER_WORKSPACE', value: 2 } },
    });

    const b1 = await stream(runB, { app: tight, key: b.key });
    expect(b1.status).toBe(200);
    const c1 = await stream(runC, { app: tight, key: c.key });
    expect(c1.status).toBe(429);
    expect(c1.json?.error?.message).toBe('too many open event streams on this server (at most 3)');

    a1.close();
    const again = await waitFor('a freed slot', async () => {
      const client = await stream(runA, { app: tight });
      return client.status === 200 ? client : undefined;
    });
    expect(again.status).toBe(200);
  });

  it('writes a keep-alive comment to an idle stream every SSE_HEARTBEAT_MS', async () => {
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const client = await stream(runId, { app: tight });
    await waitFor('two keep-alive comments', () =>
      client.comments.filter((c) => c === 'keep-alive').length >= 2 ? true : undefined,
    );
    expect(client.retry).toBe(3000);
  });

  it('drops a client that stops reading once more than SSE_MAX_BUFFERED_BYTES wait for it', async () => {
    const runId = await startRun(t.http, a.key, defs.loop);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const { port } = new URL(tight.baseUrl);
    // A raw connection that reads the answer's start, then nothing more.
    const socket = connect(Number(port), '127.0.0.1');
    const head = new Promise<string>((resolve) =>
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))),
    );
    socket.write(
      `GET /v1/workflow-runs/${runId}/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `x-api-key: ${a.key}\r\n\r\n`,
    );
    try {
      expect((await head).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      socket.pause();
      const streams = tight.app.get(RunEventStreams);
      expect(streams.open).toBe(1);
      // Each resume records a SIGNAL_RECEIVED of ~900 kB: far more than loopback's socket buffers.
      const payload = { blob: 'x'.repeat(900_000) };
      for (let i = 0; i < 24 && streams.open > 0; i++) {
        await t.http
          .post(`/v1/workflow-runs/${runId}/resume`)
          .set('x-api-key', a.key)
          .send({ signalType: 'chunk', payload })
          .expect(200);
        await waitForRun(t.http, a.key, runId, 'WAITING');
      }
      await waitFor('the server to drop the stream', () => (streams.open === 0 ? true : undefined));
      // What the client can still read ends short of what was recorded: the rest was discarded.
      let received = 0;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.resume();
      await closed;
      const recorded = await t.sql<{ bytes: string }>(
        'SELECT sum(length(payload::text)) AS bytes FROM run_events WHERE run_id = $1',
        [runId],
      );
      expect(received).toBeLessThan(Number(recorded[0].bytes));
    } finally {
      socket.destroy();
      await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', a.key);
    }
  });

  it('loses no event when the LISTEN connection drops: the listener re-reads every stream on reconnect', async () => {
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const client = await stream(runId);
    await client.waitForMessages(4);
    // OFFSET 0 keeps the filter in the subquery: only the listeners' sessions are terminated.
    const killed = await t.sql<{ pid: number }>(
      `SELECT pid, pg_terminate_backend(pid) FROM (
         SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN wf_run_events' OFFSET 0) listeners`,
    );
    expect(killed.length).toBeGreaterThan(0);
    // pg_terminate_backend only signals: wait until the sessions are gone (the listener reconnects
    // a second after it notices), so that the resume below commits while nobody listens.
    await waitFor('the listeners to be disconnected', async () => {
      const left = await t.sql('SELECT 1 FROM pg_stat_activity WHERE pid = ANY ($1::int[])', [
        killed.map((k) => k.pid),
      ]);
      return left.length === 0 ? true : undefined;
    });
    const listening = await t.sql(
      "SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN wf_run_events'",
    );
    expect(listening).toEqual([]);
    // Recorded while no listener is connected: its NOTIFY reaches nobody.
    await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', a.key)
      .send({ signalType: 'payment.received' })
      .expect(200);
    await client.waitForEnd(5000);
    expect(eventsOf(client)).toEqual(await runEvents(t.http, a.key, runId));
  });

  it('ends open streams on SIGTERM so that the process exits without waiting for them', async () => {
    const service = await startExecutorProcess(t.databaseUrl, processes);
    const runId = await startRun(t.http, a.key, defs.signal);
    await waitForRun(t.http, a.key, runId, 'WAITING');
    const client = await openEventStream(service.baseUrl, runId, { key: a.key });
    open.push(client);
    await client.waitForMessages(4);
    service.child.kill('SIGTERM');
    const exit = await service.exited(15_000);
    expect(exit.code).toBe(0);
    await client.waitForEnd(1000);
    expect(TERMINAL).not.toContain(client.messages[client.messages.length - 1].event);
  });
});

/**
 * The executor's claims and outcomes announce events only while some process listens for live
 * streams (RunEventAnnouncer): each in a database of its own, since a stream's LISTEN connection
 * lingers for a minute after its last stream and would keep the executors announcing.
 */
describe('run events announced only while a stream listens', () => {
  const apps: TestApp[] = [];
  const clients: SseClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const app of apps.splice(0)) await app.close();
  });

  async function fresh(): Promise<{ app: TestApp; key: string }> {
    const app = await createTestApp({}, { databaseUrl: await createTestDatabase() });
    apps.push(app);
    return { app, key: (await createWorkspaceWithKey(app.http)).key };
  }

  it('sends no NOTIFY from the executor while no stream is open, and does once one is', async () => {
    const { app, key } = await fresh();
    const heard: string[] = [];
    const listener = new Client({ connectionString: app.databaseUrl });
    await listener.connect();
    try {
      listener.on('notification', (n) => heard.push(n.payload ?? ''));
      await listener.query('LISTEN wf_run_events');
      const noop = await createDefinition(app.http, key, [
        { type: 'task', name: 'one', handler: 'noop' },
        { type: 'task', name: 'two', handler: 'noop' },
      ]);
      const quiet = await startRun(app.http, key, noop);
      await waitForRun(app.http, key, quiet, 'COMPLETED');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard.filter((p) => p.includes(quiet))).toEqual([]);

      // A stream anywhere (here on a run parked for a signal) makes the executors announce.
      const parked = await startRun(
        app.http,
        key,
        await createDefinition(app.http, key, [
          { type: 'external_event', name: 'wait', signalType: 'go' },
        ]),
      );
      await waitForRun(app.http, key, parked, 'WAITING');
      const client = await openEventStream(app.baseUrl, parked, { key });
      clients.push(client);
      await waitFor(
        'the executor to notice the listener',
        async () => {
          const loud = await startRun(app.http, key, noop);
          await waitForRun(app.http, key, loud, 'COMPLETED');
          await new Promise((r) => setTimeout(r, 100));
          return heard.some((p) => p.includes(loud)) ? true : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
    } finally {
      await listener.end();
    }
  });

  it('delivers what the executor recorded before it noticed a new listener', async () => {
    const { app, key } = await fresh();
    const definitionId = await createDefinition(app.http, key, [
      { type: 'wait', name: 'pause', durationMs: 2000 },
      { type: 'task', name: 'after', handler: 'noop' },
    ]);
    const created = Date.now();
    const runId = await startRun(app.http, key, definitionId);
    await waitForRun(app.http, key, runId, 'WAITING');
    // The first stream of this database opens about when the timer comes due, so that the executor
    // records the rest of the run before its next look for listeners (every second). The stream's
    // re-read once the executors have surely noticed it brings those events; the 30 s safety re-read
    // would come too late (without that re-read this failed 3 times in 3).
    await new Promise((r) => setTimeout(r, Math.max(0, created + 1950 - Date.now())));
    const client = await openEventStream(app.baseUrl, runId, { key });
    clients.push(client);
    await client.waitForEnd(8000);
    expect(eventsOf(client)).toEqual(await runEvents(app.http, key, runId));
  });
});
