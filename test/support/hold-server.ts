import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldRequest {
  path: string;
  at: number;
  /** Set when the client went away before an answer (e.g. its AbortSignal fired). */
  aborted: boolean;
  answered: boolean;
}

/**
 * A loopback HTTP server for executor tests: requests are held open until `release()` (or answered at
 * once after `answerImmediately()`), so a test can act while a step is in flight and see whether the
 * step's request was aborted.
 */
export interface HoldServer {
  url: string;
  requests: HeldRequest[];
  hits(path: string): HeldRequest[];
  release(): void;
  answerImmediately(): void;
  close(): Promise<void>;
}

export async function startHoldServer(): Promise<HoldServer> {
  const requests: HeldRequest[] = [];
  const waiting: Array<() => void> = [];
  let immediate = false;
  const server = http.createServer((req, res) => {
    const entry: HeldRequest = {
      path: req.url ?? '/',
      at: Date.now(),
      aborted: false,
      answered: false,
    };
    requests.push(entry);
    const answer = () => {
      if (entry.aborted || res.writableEnded) return;
      entry.answered = true;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, path: entry.path }));
    };
    res.on('close', () => {
      if (!entry.answered) entry.aborted = true;
    });
    if (immediate || !entry.path.startsWith('/hold')) answer();
    else waiting.push(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (path) => requests.filter((r) => r.path === path),
    release: () => waiting.splice(0).forEach((answer) => answer()),
    answerImmediately: () => {
      immediate = true;
      waiting.splice(0).forEach((answer) => answer());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
