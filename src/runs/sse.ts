import type { Response } from 'express';

/** What EventSource is told to wait before it reconnects (the `retry:` field), in milliseconds. */
export const SSE_RETRY_MS = 3000;

/** The comment written to an idle stream so that proxies and clients see it alive. */
export const HEARTBEAT = ': keep-alive\n\n';

/**
 * One message of the wire format (WHATWG HTML, "Server-sent events"): `id`, `event` and one `data`
 * line. `data` must hold no line break: JSON.stringify never writes one (it escapes them in strings).
 */
export function sseMessage(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/**
 * A `text/event-stream` answer with a bound on what it buffers. Written without a library: the format
 * is four lines, and what matters here is the buffer bound, which `res.write`'s own accounting
 * (`writableLength`, bytes not yet taken by the client's socket) gives directly.
 */
export class SseResponse {
  private ended = false;

  constructor(
    private readonly res: Response,
    private readonly maxBufferedBytes: number,
  ) {}

  /** Whether the stream is over (ended by us, dropped, or closed by the client). */
  get closed(): boolean {
    return this.ended || this.res.destroyed || this.res.writableEnded;
  }

  /** Sends the headers and the reconnection delay. No compression, no caching, no proxy buffering. */
  open(): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    this.res.write(`retry: ${SSE_RETRY_MS}\n\n`);
  }

  /**
   * Writes `chunk` unless the client has left more than the cap unread, in which case the stream is
   * dropped (the socket destroyed, so the unread bytes are freed at once) and false is returned. True
   * when written; `full` then says whether the caller should wait for `drained()` before more.
   */
  write(chunk: string): { written: boolean; full: boolean } {
    if (this.closed) return { written: false, full: false };
    if (this.res.writableLength > this.maxBufferedBytes) {
      this.drop();
      return { written: false, full: false };
    }
    const ok = this.res.write(chunk);
    return { written: true, full: !ok };
  }

  /** Resolves when the client has taken what was buffered, or the stream closed. */
  drained(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /** Ends the stream cleanly: what was written is still delivered. */
  end(): void {
    if (this.closed) return;
    this.ended = true;
    this.res.end();
  }

  /** Drops a client that does not read: its unread bytes are discarded with the connection. */
  drop(): void {
    this.ended = true;
    this.res.destroy();
  }

  /** Bytes the client has not taken yet. */
  get buffered(): number {
    return this.res.writableLength;
  }
}
