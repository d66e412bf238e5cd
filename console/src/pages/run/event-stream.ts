/**
 * Follows a run's live events (GET /v1/workflow-runs/:id/events/stream, Server-Sent Events) with the
 * browser's EventSource, which sends the session cookie itself (same origin).
 *
 * - Each message's `id:` is the event's sequence; the last one seen is kept.
 * - A dropped connection: EventSource reconnects by itself, sending `Last-Event-ID`, so the server
 *   continues after the last event (no gap, no repeat). When the browser gives up instead (readyState
 *   CLOSED: a refused reconnection, an answer that is not a stream), the stream is opened again after
 *   a delay with `?lastEventId=<last>`, once `shouldReopen` agrees (the page reads the run first: a
 *   finished run needs no stream, and a 401 there sends the user to sign-in).
 * - The run's terminal event ends it: the server closes the connection after it when nothing follows,
 *   and this then closes the EventSource instead of letting it reconnect. (A terminal event is not
 *   closed on by itself: a stream replaying a retried run goes on after its first WORKFLOW_FAILED.)
 *
 * No DOM or Preact here: the EventSource constructor and the timer are injected, so that the
 * reconnection rules are unit-tested with a fake (event-stream.spec.ts).
 */
import { isTerminalEvent, RUN_EVENT_TYPES, type RunEventLike } from './events';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'closed';

/** The part of a message event this reads. */
export interface StreamMessage {
  readonly data: string;
  readonly lastEventId: string;
}

/** The part of EventSource this uses (the DOM's EventSource has it). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((event: never) => unknown) | null;
  onerror: ((event: never) => unknown) | null;
  addEventListener(type: string, listener: (event: StreamMessage) => void): void;
  close(): void;
}

export interface EventSourceFactory {
  new (url: string, init?: { withCredentials?: boolean }): EventSourceLike;
}

export interface RunEventStreamOptions {
  runId: string;
  /** Each event as received, with its sequence (the message's `id:`). */
  onEvent: (event: RunEventLike, seq: string) => void;
  onState: (state: StreamState) => void;
  /** Asked before opening again after the browser gave up; false ends the stream. */
  shouldReopen: () => Promise<boolean>;
  EventSource?: EventSourceFactory;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  /** Delay before the first re-open; doubled after each failed one, up to MAX_REOPEN_DELAY_MS. */
  reopenDelayMs?: number;
}

/** EventSource's CLOSED readyState. */
const CLOSED = 2;
const MAX_REOPEN_DELAY_MS = 30_000;

export class RunEventStream {
  private source?: EventSourceLike;
  private lastSeq?: string;
  private state: StreamState = 'closed';
  private timer: unknown;
  private failures = 0;
  private stopped = false;
  /** The last event received was the run's terminal event: a close by the server is the end. */
  private atEnd = false;
  private readonly EventSourceImpl: EventSourceFactory;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly options: RunEventStreamOptions) {
    this.EventSourceImpl =
      options.EventSource ??
      (globalThis as unknown as { EventSource: EventSourceFactory }).EventSource;
    this.setTimer = options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.clearTimer =
      options.clearTimeout ??
      ((handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>));
  }

  /** The `id:` of the last message received. */
  get lastEventId(): string | undefined {
    return this.lastSeq;
  }

  get currentState(): StreamState {
    return this.state;
  }

  /** The stream URL: from the start, or after `lastEventId`. */
  url(): string {
    const path = `/v1/workflow-runs/${encodeURIComponent(this.options.runId)}/events/stream`;
    return this.lastSeq === undefined
      ? path
      : `${path}?lastEventId=${encodeURIComponent(this.lastSeq)}`;
  }

  /**
   * Opens the stream unless it is open (or about to re-open): after the last event seen, so that a
   * stream ended by the run's terminal event continues after a retry.
   */
  open(): void {
    this.stopped = false;
    if (this.source || this.timer !== undefined) return;
    this.connect();
  }

  /** Stops following the run (the page is left). */
  close(): void {
    this.stopped = true;
    this.cancelTimer();
    this.disconnect();
    this.setState('closed');
  }

  private connect(): void {
    this.atEnd = false;
    const source = new this.EventSourceImpl(this.url(), { withCredentials: true });
    this.source = source;
    this.setState(
      this.failures === 0 && this.lastSeq === undefined ? 'connecting' : 'reconnecting',
    );
    source.onopen = () => {
      if (this.source !== source) return;
      this.failures = 0;
      this.setState('live');
    };
    source.onerror = () => {
      if (this.source !== source) return;
      if (this.atEnd) {
        // The server closed the stream after the terminal event: nothing follows.
        this.disconnect();
        this.setState('ended');
        return;
      }
      if (source.readyState !== CLOSED) {
        // The browser reconnects by itself, with Last-Event-ID.
        this.setState('reconnecting');
        return;
      }
      this.disconnect();
      this.scheduleReopen();
    };
    for (const type of RUN_EVENT_TYPES) {
      source.addEventListener(type, (message) => this.receive(source, message));
    }
    // Messages without `event:` (none today) and types newer than this console's list.
    source.addEventListener('message', (message) => this.receive(source, message));
  }

  private receive(source: EventSourceLike, message: StreamMessage): void {
    if (this.source !== source) return;
    let event: RunEventLike;
    try {
      event = JSON.parse(message.data) as RunEventLike;
    } catch {
      return;
    }
    if (message.lastEventId) this.lastSeq = message.lastEventId;
    this.atEnd = isTerminalEvent(event.eventType);
    this.options.onEvent(event, message.lastEventId);
    // Over, unless more follows (a retry): the server's close of the stream confirms it.
    this.setState(this.atEnd ? 'ended' : 'live');
  }

  private scheduleReopen(): void {
    this.setState('reconnecting');
    const base = this.options.reopenDelayMs ?? 3000;
    const delay = Math.min(MAX_REOPEN_DELAY_MS, base * 2 ** this.failures);
    this.failures++;
    this.timer = this.setTimer(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.options.shouldReopen().then(
        (reopen) => {
          if (this.stopped || this.source) return;
          if (reopen) this.connect();
          else this.setState('ended');
        },
        () => {
          // The run could not be read either (offline): try again later.
          if (!this.stopped && !this.source) this.scheduleReopen();
        },
      );
    }, delay);
  }

  private disconnect(): void {
    const source = this.source;
    this.source = undefined;
    if (source) {
      source.onopen = null;
      source.onerror = null;
      source.close();
    }
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
  }

  private setState(state: StreamState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onState(state);
  }
}
