import http from 'node:http';
import type { Throughput } from '../lib/types';

/** Streams scenario 9 opens, one per run, on as many of the queued runs. */
export const STREAMS = 200;

export interface StreamsResult {
  /** 1(b) with no stream open (median of the samples). */
  none: Throughput;
  /** 1(b) with STREAMS event streams open on runs it executes. */
  streams: Throughput;
  /** Per repetition: messages received over all streams, and the streams the server ended. */
  delivered: Array<{ streams: number; messages: number; ended: number }>;
  samples: { none: Throughput[]; streams: Throughput[] };
}

/** Open event streams and what they received; `finished` resolves when the server has ended all. */
export interface OpenStreams {
  finished: Promise<{ streams: number; messages: number; ended: number }>;
  /** Closes whatever is still open (a failed measurement). */
  close(): void;
}

/**
 * Opens `GET /v1/workflow-runs/:id/events/stream` for each run, each on its own connection, and
 * counts the messages as they arrive (a line starting `event:` per message), resolving once each has
 * answered 200 and sent its `retry:` line. The client does as little as a real one would: it reads
 * and counts, nothing more.
 */
export async function openStreams(
  baseUrl: string,
  apiKey: string,
  runIds: string[],
): Promise<OpenStreams> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: false, maxSockets: runIds.length });
  const requests: http.ClientRequest[] = [];
  let messages = 0;
  let ended = 0;
  // Each resolves with a holder: resolving with the `done` promise itself would wait for it.
  const opened: Array<Promise<{ done: Promise<void> }>> = runIds.map(
    (id) =>
      new Promise((resolveOpen, rejectOpen) => {
        const req = http.get(
          {
            agent,
            hostname: url.hostname,
            port: url.port,
            path: `/v1/workflow-runs/${id}/events/stream`,
            headers: { 'x-api-key': apiKey },
          },
          (res) => {
            if (res.statusCode !== 200) {
              rejectOpen(new Error(`stream of run ${id} answered ${res.statusCode}`));
              res.resume();
              return;
            }
            res.setEncoding('utf8');
            let tail = '';
            const done = new Promise<void>((resolve) => {
              res.on('end', () => {
                ended += 1;
                resolve();
              });
              res.on('close', resolve);
            });
            res.once('data', () => resolveOpen({ done }));
            res.on('data', (chunk: string) => {
              const text = tail + chunk;
              // Every message has an id line before its event line. The tail is one character
              // shorter than the pattern, so no occurrence is counted twice.
              messages += text.split('\nevent: ').length - 1;
              tail = text.slice(-7);
            });
          },
        );
        req.on('error', rejectOpen);
        requests.push(req);
      }),
  );
  const dones = await Promise.all(opened);
  return {
    finished: Promise.all(dones.map((d) => d.done)).then(() => ({
      streams: runIds.length,
      messages,
      ended,
    })),
    close: () => {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}
