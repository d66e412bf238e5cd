import { RunEventStream, type StreamMessage, type StreamState } from './event-stream';

/** A stand-in for the browser's EventSource: records what it was opened with, lets the test drive it. */
class FakeEventSource {
  static opened: FakeEventSource[] = [];
  readyState = 0;
  closed = false;
  onopen: ((event: never) => unknown) | null = null;
  onerror: ((event: never) => unknown) | null = null;
  private readonly listeners = new Map<string, ((event: StreamMessage) => void)[]>();

  constructor(
    readonly url: string,
    readonly init?: { withCredentials?: boolean },
  ) {
    FakeEventSource.opened.push(this);
  }

  addEventListener(type: string, listener: (event: StreamMessage) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close(): void {
    this.closed = true;
    this.readyState = 2;
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.(undefined as never);
  }

  send(seq: number, eventType: string, id = `ev-${seq}`): void {
    const data = JSON.stringify({
      id,
      eventType,
      stepRunId: null,
      payload: {},
      createdAt: '2026-11-24T10:00:00.000Z',
    });
    for (const listener of this.listeners.get(eventType) ?? []) {
      listener({ data, lastEventId: String(seq) });
    }
  }

  /** A dropped connection the browser retries itself (CONNECTING), or gives up on (CLOSED). */
  fail(givesUp: boolean): void {
    this.readyState = givesUp ? 2 : 0;
    this.onerror?.(undefined as never);
  }
}

function harness(shouldReopen: () => Promise<boolean> = () => Promise.resolve(true)) {
  FakeEventSource.opened = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const states: StreamState[] = [];
  const received: string[] = [];
  const stream = new RunEventStream({
    runId: 'run-1',
    onEvent: (event, seq) => received.push(`${seq}:${event.eventType}`),
    onState: (state) => states.push(state),
    shouldReopen,
    EventSource: FakeEventSource,
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => undefined,
    reopenDelayMs: 1000,
  });
  const fireTimer = async () => {
    const timer = timers.shift();
    if (!timer) throw new Error('no timer scheduled');
    timer.fn();
    // Let shouldReopen's promise settle.
    await new Promise((resolve) => setImmediate(resolve));
    return timer.ms;
  };
  return { stream, timers, states, received, fireTimer, sources: () => FakeEventSource.opened };
}

describe('RunEventStream', () => {
  it('opens the stream from the start with credentials and reports each event with its sequence', () => {
    const h = harness();
    h.stream.open();
    const [source] = h.sources();
    expect(source.url).toBe('/v1/workflow-runs/run-1/events/stream');
    expect(source.init).toEqual({ withCredentials: true });
    source.open();
    source.send(10, 'WORKFLOW_STARTED');
    source.send(12, 'STEP_STARTED');
    expect(h.received).toEqual(['10:WORKFLOW_STARTED', '12:STEP_STARTED']);
    expect(h.stream.lastEventId).toBe('12');
    expect(h.states).toEqual(['connecting', 'live']);
  });

  it('leaves a dropped connection to the browser while it reconnects by itself', () => {
    const h = harness();
    h.stream.open();
    const [source] = h.sources();
    source.open();
    source.fail(false);
    expect(h.states.at(-1)).toBe('reconnecting');
    expect(h.sources()).toHaveLength(1);
    expect(h.timers).toHaveLength(0);
    source.open();
    expect(h.states.at(-1)).toBe('live');
  });

  it('opens again after the last event id when the browser gives up, backing off while it fails', async () => {
    let reads = 0;
    const h = harness(() => {
      reads++;
      return Promise.resolve(true);
    });
    h.stream.open();
    const first = h.sources()[0];
    first.open();
    first.send(41, 'STEP_STARTED');
    first.fail(true);
    expect(first.closed).toBe(true);
    expect(h.states.at(-1)).toBe('reconnecting');
    expect(await h.fireTimer()).toBe(1000);
    expect(reads).toBe(1);
    const second = h.sources()[1];
    expect(second.url).toBe('/v1/workflow-runs/run-1/events/stream?lastEventId=41');
    second.fail(true); // refused again
    expect(await h.fireTimer()).toBe(2000);
    const third = h.sources()[2];
    third.open();
    expect(h.states.at(-1)).toBe('live');
    third.send(45, 'STEP_COMPLETED');
    third.fail(true);
    expect(await h.fireTimer()).toBe(1000); // a connection that opened resets the back-off
    expect(h.sources()[3].url).toBe('/v1/workflow-runs/run-1/events/stream?lastEventId=45');
  });

  it('does not open again when the page says the run needs no stream', async () => {
    const h = harness(() => Promise.resolve(false));
    h.stream.open();
    h.sources()[0].fail(true);
    await h.fireTimer();
    expect(h.sources()).toHaveLength(1);
    expect(h.states.at(-1)).toBe('ended');
  });

  it('tries later when the run could not be read before re-opening', async () => {
    let attempt = 0;
    const h = harness(() =>
      ++attempt === 1 ? Promise.reject(new Error('offline')) : Promise.resolve(true),
    );
    h.stream.open();
    h.sources()[0].fail(true);
    await h.fireTimer();
    expect(h.sources()).toHaveLength(1);
    await h.fireTimer();
    expect(h.sources()).toHaveLength(2);
  });

  it('ends when the server closes the stream after the terminal event, and continues after it when opened again', () => {
    const h = harness();
    h.stream.open();
    const first = h.sources()[0];
    first.open();
    first.send(7, 'WORKFLOW_FAILED');
    expect(h.states.at(-1)).toBe('ended');
    first.fail(false); // the server's close: the browser would reconnect, this closes instead
    expect(first.closed).toBe(true);
    expect(h.timers).toHaveLength(0);
    expect(h.states.at(-1)).toBe('ended');
    h.stream.open(); // after a retry
    expect(h.sources()[1].url).toBe('/v1/workflow-runs/run-1/events/stream?lastEventId=7');
  });

  it('goes on past a terminal event that more events follow (a replayed retry)', () => {
    const h = harness();
    h.stream.open();
    const source = h.sources()[0];
    source.open();
    source.send(7, 'WORKFLOW_FAILED');
    source.send(9, 'STEP_RETRYING');
    expect(h.states.at(-1)).toBe('live');
    source.fail(false); // a dropped connection: left to the browser's reconnection
    expect(source.closed).toBe(false);
    expect(h.states.at(-1)).toBe('reconnecting');
    expect(h.received).toEqual(['7:WORKFLOW_FAILED', '9:STEP_RETRYING']);
  });

  it('ignores messages of a given-up source, and a re-open due after close()', async () => {
    const h = harness();
    h.stream.open();
    const first = h.sources()[0];
    first.fail(true);
    first.send(3, 'STEP_STARTED');
    expect(h.received).toEqual([]);
    h.stream.close();
    expect(h.states.at(-1)).toBe('closed');
    await h.fireTimer(); // the fake clearTimeout keeps it: it must do nothing
    expect(h.sources()).toHaveLength(1);
  });

  it('starts nothing new when opened while a re-open is pending', () => {
    const h = harness();
    h.stream.open();
    h.sources()[0].fail(true);
    h.stream.open();
    expect(h.sources()).toHaveLength(1);
    expect(h.timers).toHaveLength(1);
  });
});
