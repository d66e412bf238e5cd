import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { checkAnswer } from './openapi-check';

/** A Server-Sent Events stream read over fetch and parsed as the wire format says. */
export interface SseClient {
  status: number;
  headers: Headers;
  /** The body when the answer was not a stream (an error envelope). */
  json?: { success: boolean; error?: { code: string; message: string } };
  messages: EventSourceMessage[];
  comments: string[];
  retry?: number;
  /** Resolves once the server has ended the stream (not when the client aborted it). */
  ended: Promise<void>;
  /** Whether the server ended the stream. */
  isEnded(): boolean;
  /** Waits until `count` messages have arrived; fails with what did arrive after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<EventSourceMessage[]>;
  /** Waits until a message of `event` type has arrived. */
  waitForEvent(event: string, timeoutMs?: number): Promise<EventSourceMessage>;
  /** Waits until the server has ended the stream. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  /** Closes the connection from the client side. */
  close(): void;
}

/** Parses a whole event-stream body (a stream the server already ended). */
export function parseEventStream(text: string): {
  messages: EventSourceMessage[];
  comments: string[];
  retry?: number;
} {
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  let retry: number | undefined;
  const parser = createParser({
    onEvent: (m) => messages.push(m),
    onComment: (c) => comments.push(c.trim()),
    onRetry: (ms) => (retry = ms),
  });
  parser.feed(text);
  return { messages, comments, retry };
}

async function until<T>(
  what: () => string,
  check: () => T | undefined,
  changed: () => Promise<void>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await Promise.race([changed(), new Promise((r) => setTimeout(r, Math.min(left, 100)))]);
  }
}

/**
 * Opens `GET /v1/workflow-runs/:id/events/stream` with fetch and parses its body as it arrives
 * (eventsource-parser: the `id`, `event`, `data`, `retry` fields and comments of the wire format).
 */
export async function openEventStream(
  baseUrl: string,
  runId: string,
  options: { key?: string; lastEventId?: string; query?: string } = {},
): Promise<SseClient> {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (options.key) headers['x-api-key'] = options.key;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const url = `${baseUrl}/v1/workflow-runs/${runId}/events/stream${options.query ?? ''}`;
  const res = await fetch(url, { headers, signal: abort.signal });
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  let ended = false;
  let notify: () => void = () => undefined;
  let progress = new Promise<void>((resolve) => (notify = resolve));
  const changed = () => progress;
  const bump = () => {
    notify();
    progress = new Promise<void>((resolve) => (notify = resolve));
  };
  const client: SseClient = {
    status: res.status,
    headers: res.headers,
    messages,
    comments,
    ended: Promise.resolve(),
    isEnded: () => ended,
    waitForMessages: (count, timeoutMs = 10_000) =>
      until(
        () => `${count} messages (got ${messages.map((m) => m.event).join(', ')})`,
        () => (messages.length >= count ? messages.slice(0, count) : undefined),
        changed,
        timeoutMs,
      ),
    waitForEvent: (event, timeoutMs = 10_000) =>
      until(
        () => `a ${event} message (got ${messages.map((m) => m.event).join(', ')})`,
        () => messages.find((m) => m.event === event),
        changed,
        timeoutMs,
      ),
    waitForEnd: (timeoutMs = 10_000) =>
      until(
        () => `the server to end the stream (got ${messages.map((m) => m.event).join(', ')})`,
        () => (ended ? true : undefined),
        changed,
        timeoutMs,
      ).then(() => undefined),
    close: () => abort.abort(),
  };
  const answer = { status: res.status, headers: Object.fromEntries(res.headers), text: '' };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    if (text !== '') client.json = JSON.parse(text) as SseClient['json'];
    ended = true;
    // Held to the OpenAPI document like the checked agent's answers.
    checkAnswer('GET', url, { ...answer, text, body: client.json ?? {} });
    return client;
  }
  checkAnswer('GET', url, { ...answer, body: {} });
  const parser = createParser({
    onEvent: (m) => {
      messages.push(m);
      bump();
    },
    onComment: (c) => {
      comments.push(c.trim());
      bump();
    },
    onRetry: (ms) => (client.retry = ms),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  client.ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      ended = true;
    } catch {
      // Aborted by the client: not an end by the server.
    } finally {
      bump();
    }
  })();
  return client;
}
