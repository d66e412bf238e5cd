import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { Envelope, Signal } from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { ISO_MS, UUID_V7 } from './support/formats';
import { openEventStream } from './support/sse-client';
import {
  createDefinition,
  getRun,
  runEvents,
  startRun,
  waitForRun,
  type EventView,
  type Step,
} from './support/workflows';

/** The most signals one run may hold buffered in this file's app (MAX_BUFFERED_SIGNALS_PER_RUN). */
const CAP = 3;

/** A `wait` step without fields: the run waits there until resumed (signals do not end it). */
const gate = (name = 'gate'): Step => ({ type: 'wait', name });
const event = (name: string, signalType?: string): Step => ({
  type: 'external_event',
  name,
  ...(signalType === undefined ? {} : { signalType }),
});

/**
 * Signals that arrive early (README "Signals"): POST /v1/workflow-runs/:id/signals delivers to a run
 * waiting on an external_event step of the signal's type, and otherwise buffers the signal durably for
 * the next such step, which consumes the oldest at once when it starts, exactly once. Buffered signals
 * are listed with the run and dropped, with an event, when it ends.
 */
describe('signals', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp({ MAX_BUFFERED_SIGNALS_PER_RUN: String(CAP) });
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = (runId: string, body: unknown, key = ws.key) =>
    t.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', key)
      .send(body as object);

  async function signal(
    runId: string,
    signalType: string,
    payload?: unknown,
  ): Promise<Signal & { status: string }> {
    const res = await send(runId, payload === undefined ? { signalType } : { signalType, payload });
    if (res.status !== 202) throw new Error(`signal refused: ${res.status} ${res.text}`);
    return (res.body as Envelope<Signal>).data;
  }

  const resume = (runId: string, signalType: string, payload: Record<string, unknown> = {}) =>
    t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType, payload });

  /** Starts a run of `steps` and waits until it is parked at its first step. */
  async function runAt(steps: Step[], status = 'WAITING', input = {}): Promise<string> {
    const definitionId = await createDefinition(t.http, ws.key, steps);
    const runId = await startRun(t.http, ws.key, definitionId, input);
    await waitForRun(t.http, ws.key, runId, status);
    return runId;
  }

  /** What the database still holds buffered for the run: the rows and the run's count of them. */
  async function stored(runId: string): Promise<{ rows: number; counted: number }> {
    const [row] = await t.sql<{ rows: number; counted: number }>(
      `SELECT (SELECT count(*)::int FROM run_signals WHERE run_id = $1) AS rows,
              (SELECT buffered_signals FROM workflow_runs WHERE id = $1) AS counted`,
      [runId],
    );
    return row;
  }

  const ofType = (events: EventView[], type: string) => events.filter((e) => e.eventType === type);
  /** The SIGNAL_RECEIVED events of signals (the gates' resumes excluded). */
  const received = (events: EventView[]) =>
    ofType(events, 'SIGNAL_RECEIVED').filter((e) => e.payload.stepName !== 'gate');

  it('buffers a signal sent before the wait, and the external_event step consumes it at once when it starts', async () => {
    const runId = await runAt([gate(), event('await-payment', 'payment.received'), event('more')]);
    const before = Date.now();
    const sent = await signal(runId, 'payment.received', { amount: 12, currency: 'EUR' });
    expect(sent).toEqual({
      id: expect.stringMatching(UUID_V7),
      signalType: 'payment.received',
      status: 'buffered',
    });

    const waiting = await getRun(t.http, ws.key, runId);
    expect(waiting.status).toBe('WAITING');
    expect(waiting.bufferedSignals).toEqual([
      {
        id: sent.id,
        signalType: 'payment.received',
        payloadBytes: Buffer.byteLength('{"amount":12,"currency":"EUR"}'),
        payloadPreview: '{"amount":12,"currency":"EUR"}',
        receivedAt: expect.stringMatching(ISO_MS),
      },
    ]);
    const receivedAt = waiting.bufferedSignals[0].receivedAt;
    expect(Date.parse(receivedAt)).toBeGreaterThanOrEqual(before - 1000);

    expect((await resume(runId, 'go')).status).toBe(200);
    // The next external_event ("more") waits: the first one took the buffered signal.
    const run = await waitForStepIndex(runId, 2);
    expect(run.bufferedSignals).toEqual([]);
    const steps = await stepOutputs(runId);
    // The output a resume with that payload gives, received when the signal was accepted.
    expect(steps['await-payment']).toEqual({
      signalType: 'payment.received',
      payload: { amount: 12, currency: 'EUR' },
      receivedAt,
    });

    const events = await runEvents(t.http, ws.key, runId);
    expect(ofType(events, 'SIGNAL_BUFFERED').map((e) => e.payload)).toEqual([
      {
        signalId: sent.id,
        signalType: 'payment.received',
        payloadBytes: Buffer.byteLength('{"amount":12,"currency":"EUR"}'),
      },
    ]);
    const stepEvents = events
      .filter((e) => e.payload.stepName === 'await-payment')
      .map((e) => e.eventType);
    expect(stepEvents).toEqual(['STEP_STARTED', 'SIGNAL_RECEIVED', 'STEP_COMPLETED']);
    expect(received(events)[0].payload).toEqual({
      signalType: 'payment.received',
      stepName: 'await-payment',
      payload: { amount: 12, currency: 'EUR' },
      signalId: sent.id,
      buffered: true,
      receivedAt,
    });
    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
  });

  async function waitForStepIndex(runId: string, index: number) {
    for (;;) {
      const run = await getRun(t.http, ws.key, runId);
      if (run.currentStepIndex === index && run.status === 'WAITING') return run;
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) {
        throw new Error(`run ended ${run.status} before step ${index}: ${run.error}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stepOutputs(runId: string): Promise<Record<string, unknown>> {
    const res = await t.http.get(`/v1/workflow-runs/${runId}/steps`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    const steps = (res.body as Envelope<Array<{ stepName: string; output: unknown }>>).data;
    return Object.fromEntries(steps.map((s) => [s.stepName, s.output]));
  }

  it('consumes several signals of one type in order, each exactly once, while other types stay buffered until the run ends', async () => {
    const runId = await runAt([
      gate(),
      event('first', 'a'),
      event('second', 'a'),
      event('last', 'a'),
    ]);
    const a1 = await signal(runId, 'a', { n: 1 });
    const b1 = await signal(runId, 'b', ['not', 'for', 'these', 'steps']);
    const a2 = await signal(runId, 'a', 'two');
    expect([a1.status, b1.status, a2.status]).toEqual(['buffered', 'buffered', 'buffered']);
    expect((await getRun(t.http, ws.key, runId)).bufferedSignals.map((s) => s.id)).toEqual([
      a1.id,
      b1.id,
      a2.id,
    ]);

    expect((await resume(runId, 'go')).status).toBe(200);
    const waiting = await waitForStepIndex(runId, 3);
    expect(waiting.bufferedSignals).toEqual([
      expect.objectContaining({
        id: b1.id,
        signalType: 'b',
        payloadPreview: '["not","for","these","steps"]',
      }),
    ]);
    const outputs = await stepOutputs(runId);
    expect(outputs.first).toMatchObject({ signalType: 'a', payload: { n: 1 } });
    expect(outputs.second).toMatchObject({ signalType: 'a', payload: 'two' });

    // The last step waits: a signal of its type now is delivered, as a resume would be.
    const a3 = await signal(runId, 'a', { n: 3 });
    expect(a3.status).toBe('delivered');
    const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(done.output).toMatchObject({
      first: { payload: { n: 1 } },
      second: { payload: 'two' },
      last: { signalType: 'a', payload: { n: 3 } },
    });
    expect(done.bufferedSignals).toEqual([]);

    const events = await runEvents(t.http, ws.key, runId);
    const consumed = received(events).map((e) => [
      e.payload.stepName,
      e.payload.signalId,
      e.payload.buffered,
    ]);
    expect(consumed).toEqual([
      ['first', a1.id, true],
      ['second', a2.id, true],
      ['last', a3.id, undefined],
    ]);
    // b1 was never consumed: dropped with the run's end, recorded just before WORKFLOW_COMPLETED.
    const types = events.map((e) => e.eventType);
    expect(types.slice(-2)).toEqual(['SIGNALS_DROPPED', 'WORKFLOW_COMPLETED']);
    expect(events[events.length - 2]).toMatchObject({
      stepRunId: null,
      payload: { count: 1, signals: [{ id: b1.id, signalType: 'b' }] },
    });
    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
  });

  it('delivers a signal to a run waiting on an external_event of its type, and buffers one of another type', async () => {
    const runId = await runAt([
      event('await', 'ready'),
      { type: 'task', name: 'after', handler: 'noop' },
    ]);
    const other = await signal(runId, 'not-ready', { x: 1 });
    expect(other.status).toBe('buffered');
    expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');

    const sent = await signal(runId, 'ready', { ok: true });
    expect(sent).toMatchObject({ signalType: 'ready', status: 'delivered' });
    const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(done.output?.await).toEqual({
      signalType: 'ready',
      payload: { ok: true },
      receivedAt: expect.stringMatching(ISO_MS),
    });
    const events = await runEvents(t.http, ws.key, runId);
    expect(ofType(events, 'SIGNAL_RECEIVED').map((e) => e.payload)).toEqual([
      { signalType: 'ready', stepName: 'await', payload: { ok: true }, signalId: sent.id },
    ]);
    // The other one was dropped when the run completed (the executor's batched completion leaves a
    // run with buffered signals to the transaction that drops them).
    expect(events.map((e) => e.eventType).slice(-2)).toEqual([
      'SIGNALS_DROPPED',
      'WORKFLOW_COMPLETED',
    ]);
    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
  });

  it('lets an external_event step without signalType take the oldest buffered signal of any type', async () => {
    const runId = await runAt([gate(), event('anything'), event('anything-else')]);
    const first = await signal(runId, 'z.last-alphabetically', 1);
    const second = await signal(runId, 'a.first-alphabetically', null);
    expect((await resume(runId, 'go')).status).toBe(200);
    const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    expect(done.output).toMatchObject({
      anything: { signalType: 'z.last-alphabetically', payload: 1 },
      'anything-else': { signalType: 'a.first-alphabetically', payload: null },
    });
    const ids = received(await runEvents(t.http, ws.key, runId)).map((e) => e.payload.signalId);
    expect(ids).toEqual([first.id, second.id]);
  });

  it('never loses or doubles a signal racing the start of its step (several runs, several signals each)', async () => {
    const definitionId = await createDefinition(t.http, ws.key, [
      { type: 'task', name: 'warm-up', handler: 'noop' },
      event('e1', 'tick'),
      event('e2', 'tick'),
      event('e3', 'tick'),
    ]);
    for (let round = 0; round < 8; round++) {
      const runId = await startRun(t.http, ws.key, definitionId);
      // Sent at once and a little later, so that some arrive before, while and after each step parks.
      const answers = await Promise.all(
        [0, 1, 2].map(async (n) => {
          await new Promise((r) => setTimeout(r, (round * 3 + n * 7) % 25));
          return signal(runId, 'tick', { n });
        }),
      );
      const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
      const events = await runEvents(t.http, ws.key, runId);
      // The order the signals were accepted in: each one's first event (buffered or delivered).
      const accepted: string[] = [];
      for (const e of events) {
        const id = e.payload.signalId as string | undefined;
        if (id && !accepted.includes(id)) accepted.push(id);
      }
      expect(accepted.sort()).toEqual(answers.map((a) => a.id).sort());
      const consumed = ofType(events, 'SIGNAL_RECEIVED').map((e) => e.payload.signalId);
      expect(consumed).toHaveLength(3);
      expect(new Set(consumed).size).toBe(3);
      // Consumed in the order accepted, step after step.
      const inOrder: string[] = [];
      for (const e of events) {
        const id = e.payload.signalId as string | undefined;
        if (id && !inOrder.includes(id)) inOrder.push(id);
      }
      expect(consumed).toEqual(inOrder);
      // The signal sent n-th carries {n}.
      const payloadOf = (id: unknown) => ({ n: answers.findIndex((a) => a.id === id) });
      expect(done.output).toMatchObject({
        e1: { payload: payloadOf(consumed[0]) },
        e2: { payload: payloadOf(consumed[1]) },
        e3: { payload: payloadOf(consumed[2]) },
      });
      expect(ofType(events, 'SIGNALS_DROPPED')).toEqual([]);
      expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
    }
  });

  it('drops the buffered signals with an event in the transaction that cancels or fails the run', async () => {
    const cancelled = await runAt([gate(), event('never', 'x')]);
    const x = await signal(cancelled, 'y', { keep: 'me' });
    const y = await signal(cancelled, 'z');
    const res = await t.http.post(`/v1/workflow-runs/${cancelled}/cancel`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    const run = await getRun(t.http, ws.key, cancelled);
    expect(run).toMatchObject({ status: 'CANCELLED', bufferedSignals: [] });
    let events = await runEvents(t.http, ws.key, cancelled);
    expect(events.slice(-2).map((e) => [e.eventType, e.payload])).toEqual([
      [
        'SIGNALS_DROPPED',
        {
          count: 2,
          signals: [
            { id: x.id, signalType: 'y' },
            { id: y.id, signalType: 'z' },
          ],
        },
      ],
      ['WORKFLOW_CANCELLED', {}],
    ]);
    expect(await stored(cancelled)).toEqual({ rows: 0, counted: 0 });

    const failed = await runAt([
      gate(),
      { type: 'task', name: 'broken', handler: 'no.such.handler' },
    ]);
    const z = await signal(failed, 'late');
    expect((await resume(failed, 'go')).status).toBe(200);
    await waitForRun(t.http, ws.key, failed, 'FAILED');
    events = await runEvents(t.http, ws.key, failed);
    expect(events.slice(-2).map((e) => [e.eventType, e.payload.signals])).toEqual([
      ['SIGNALS_DROPPED', [{ id: z.id, signalType: 'late' }]],
      ['WORKFLOW_FAILED', undefined],
    ]);
    expect((await getRun(t.http, ws.key, failed)).bufferedSignals).toEqual([]);
    expect(await stored(failed)).toEqual({ rows: 0, counted: 0 });

    // A run that ends without buffered signals records no SIGNALS_DROPPED.
    const plain = await runAt([gate()]);
    await t.http.post(`/v1/workflow-runs/${plain}/cancel`).set('x-api-key', ws.key).expect(200);
    expect(ofType(await runEvents(t.http, ws.key, plain), 'SIGNALS_DROPPED')).toEqual([]);
  });

  it("streams SIGNAL_BUFFERED live, and the stream still ends with the run's terminal event after SIGNALS_DROPPED", async () => {
    const runId = await runAt([gate(), event('never', 'x')]);
    const stream = await openEventStream(t.baseUrl, runId, { key: ws.key });
    try {
      expect(stream.status).toBe(200);
      const sent = await signal(runId, 'y', { n: 1 });
      const buffered = await stream.waitForEvent('SIGNAL_BUFFERED');
      expect(JSON.parse(buffered.data).payload).toEqual({
        signalId: sent.id,
        signalType: 'y',
        payloadBytes: 7,
      });
      await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
      await stream.waitForEnd();
      expect(stream.messages.slice(-2).map((m) => m.event)).toEqual([
        'SIGNALS_DROPPED',
        'WORKFLOW_CANCELLED',
      ]);
    } finally {
      stream.close();
    }
  });

  it('refuses a signal for a run that has ended with 409, and changes nothing', async () => {
    const definitionId = await createDefinition(t.http, ws.key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    const completed = await startRun(t.http, ws.key, definitionId);
    await waitForRun(t.http, ws.key, completed, 'COMPLETED');
    const eventsBefore = (await runEvents(t.http, ws.key, completed)).length;
    const res = await send(completed, { signalType: 'late', payload: {} });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'CONFLICT',
        message: 'run is COMPLETED; signals are accepted only until the run ends',
      },
    });
    expect((await runEvents(t.http, ws.key, completed)).length).toBe(eventsBefore);
    expect(await stored(completed)).toEqual({ rows: 0, counted: 0 });

    const cancelled = await runAt([gate()]);
    await t.http.post(`/v1/workflow-runs/${cancelled}/cancel`).set('x-api-key', ws.key).expect(200);
    const again = await send(cancelled, { signalType: 'late' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      'run is CANCELLED; signals are accepted only until the run ends',
    );
  });

  it("answers 404 for another workspace's run, an unknown run and a malformed id, and writes nothing", async () => {
    const runId = await runAt([gate()]);
    const other = await createWorkspaceWithKey(t.http);
    for (const [id, key] of [
      [runId, other.key],
      [randomUUID(), ws.key],
      ['not-a-uuid', ws.key],
    ]) {
      const res = await send(id, { signalType: 'x', payload: {} }, key);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
      expect(res.body.error.message).toBe('workflow run not found');
    }
    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
  });

  it('refuses bad input with 400 (413 for a payload over its limit) naming the field, and writes nothing', async () => {
    const runId = await runAt([gate()]);
    const eventsBefore = (await runEvents(t.http, ws.key, runId)).length;
    const big = 'x'.repeat(t.config.limits.signalPayloadBytes);
    const cases: Array<[string, () => Promise<Response>, number, string]> = [
      ['no signalType', () => send(runId, { payload: {} }), 400, 'signalType'],
      ['empty signalType', () => send(runId, { signalType: '' }), 400, 'signalType'],
      ['signalType not a string', () => send(runId, { signalType: 7 }), 400, 'signalType'],
      [
        'signalType of 101 characters',
        () => send(runId, { signalType: 'a'.repeat(101) }),
        400,
        'signalType',
      ],
      ['unknown field', () => send(runId, { signalType: 'a', extra: 1 }), 400, 'extra'],
      ['body not an object', () => send(runId, [{ signalType: 'a' }]), 400, 'body'],
      [
        'payload over MAX_SIGNAL_PAYLOAD_BYTES',
        () => send(runId, { signalType: 'a', payload: { big } }),
        413,
        'payload',
      ],
      [
        'duplicated member name in the payload',
        () =>
          t.http
            .post(`/v1/workflow-runs/${runId}/signals`)
            .set('x-api-key', ws.key)
            .set('content-type', 'application/json')
            .send('{"signalType":"a","payload":{"n":1,"n":2}}'),
        400,
        'payload.n',
      ],
      [
        'NUL character in the payload',
        () => send(runId, { signalType: 'a', payload: { note: 'a\u0000b' } }),
        400,
        'payload.note',
      ],
      [
        'malformed JSON',
        () =>
          t.http
            .post(`/v1/workflow-runs/${runId}/signals`)
            .set('x-api-key', ws.key)
            .set('content-type', 'application/json')
            .send('{"signalType": '),
        400,
        'body',
      ],
    ];
    for (const [what, request, status, field] of cases) {
      const res = await request();
      expect({ what, status: res.status }).toEqual({ what, status });
      const fields = (res.body.error.details.errors as Array<{ field: string }>).map(
        (e) => e.field,
      );
      expect({ what, fields }).toEqual({ what, fields: expect.arrayContaining([field]) });
    }
    const form = await t.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', ws.key)
      .type('form')
      .send('signalType=a');
    expect(form.status).toBe(415);

    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
    expect((await runEvents(t.http, ws.key, runId)).length).toBe(eventsBefore);
    expect((await getRun(t.http, ws.key, runId)).bufferedSignals).toEqual([]);
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
  });

  it('keeps any JSON payload exactly as given, prototype-named keys included', async () => {
    const runId = await runAt([gate(), event('take', 'p')]);
    const payload = { __proto__: { admin: true }, constructor: 'c', nested: [{ prototype: 1 }] };
    const text = JSON.stringify({ signalType: 'p', payload }).replace(
      '"nested"',
      '"__proto__":{"admin":true},"nested"',
    );
    const res = await t.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', ws.key)
      .set('content-type', 'application/json')
      .send(text);
    expect(res.status).toBe(202);
    expect((await resume(runId, 'go')).status).toBe(200);
    const done = await waitForRun(t.http, ws.key, runId, 'COMPLETED');
    const taken = (done.output?.take as { payload: Record<string, unknown> }).payload;
    expect(Object.getOwnPropertyNames(taken).sort()).toEqual([
      '__proto__',
      'constructor',
      'nested',
    ]);
    expect(Object.getPrototypeOf(taken)).toBe(Object.prototype);
  });

  it(`refuses a signal past ${CAP} buffered for one run with 409 naming the limit, until a step consumes one`, async () => {
    const runId = await runAt([gate(), event('take-one', 'a'), gate('hold')]);
    for (let i = 0; i < CAP; i++) await signal(runId, 'a', { i });
    const full = await send(runId, { signalType: 'other' });
    expect(full.status).toBe(409);
    expect(full.body.error).toEqual({
      code: 'CONFLICT',
      message:
        `body: the run already holds ${CAP} buffered signals, the most allowed ` +
        '(MAX_BUFFERED_SIGNALS_PER_RUN); an external_event step of their type must consume one first',
      details: {
        errors: [
          {
            field: 'body',
            message:
              `the run already holds ${CAP} buffered signals, the most allowed ` +
              '(MAX_BUFFERED_SIGNALS_PER_RUN); an external_event step of their type must consume one first',
          },
        ],
        limit: { name: 'MAX_BUFFERED_SIGNALS_PER_RUN', value: CAP },
      },
    });
    expect(await stored(runId)).toEqual({ rows: CAP, counted: CAP });

    expect((await resume(runId, 'go')).status).toBe(200);
    await waitForStepIndex(runId, 2);
    expect((await signal(runId, 'other')).status).toBe('buffered');
    expect(await stored(runId)).toEqual({ rows: CAP, counted: CAP });
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
    expect(await stored(runId)).toEqual({ rows: 0, counted: 0 });
  });

  it('leaves resume as the contract has it: 409 when the run is not waiting, and no buffering', async () => {
    const paused = await runAt(
      [{ type: 'approval', name: 'review', contentKey: 'draft' }, event('after', 'a')],
      'PAUSED',
      { draft: 'text' },
    );
    const refused = await resume(paused, 'a', { early: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: 'CONFLICT',
      message: 'run is not in a waiting state',
    });
    expect(await stored(paused)).toEqual({ rows: 0, counted: 0 });
    // A signal for the same run is buffered instead.
    expect((await signal(paused, 'a', { early: true })).status).toBe('buffered');

    const waiting = await runAt([event('await', 'a')]);
    await signal(waiting, 'b');
    const mismatch = await resume(waiting, 'b');
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error.message).toBe('signal type mismatch: the run is waiting for "a"');
    const resumed = await resume(waiting, 'a', { via: 'resume' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ id: waiting, status: 'RUNNING' });
    const done = await waitForRun(t.http, ws.key, waiting, 'COMPLETED');
    expect(done.output?.await).toMatchObject({ signalType: 'a', payload: { via: 'resume' } });
    const events = ofType(await runEvents(t.http, ws.key, waiting), 'SIGNAL_RECEIVED');
    // Resume's event is as before: no signal id.
    expect(events.map((e) => e.payload)).toEqual([
      { signalType: 'a', stepName: 'await', payload: { via: 'resume' } },
    ]);
    await t.http.post(`/v1/workflow-runs/${paused}/cancel`).set('x-api-key', ws.key).expect(200);
  });
});
