import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Throughput } from '../lib/types';

/** The three ways scenario 8 runs the executor: no metrics, metrics (the default), metrics + traces. */
export const OBSERVABILITY_VARIANTS = ['off', 'metrics', 'tracing'] as const;
export type ObservabilityVariant = (typeof OBSERVABILITY_VARIANTS)[number];

export interface ObservabilityResult {
  /** Median of each variant's samples. */
  off: Throughput;
  metrics: Throughput;
  tracing: Throughput;
  /** Trace exports the collector received over the whole scenario, and their bytes. */
  exports: { requests: number; bytes: number };
  samples: Record<ObservabilityVariant, Throughput[]>;
}

/**
 * An OTLP/HTTP trace receiver on loopback that accepts every export (200, empty
 * ExportTraceServiceResponse) and keeps only counts: the collector a traced service sends to, at no
 * cost to the machine beyond reading the bytes.
 */
export async function startCollector(): Promise<{
  endpoint: string;
  received: { requests: number; bytes: number };
  close(): Promise<void>;
}> {
  const received = { requests: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') received.requests += 1;
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The executor's environment for a variant. */
export function variantEnv(
  variant: ObservabilityVariant,
  endpoint: string,
): Record<string, string> {
  switch (variant) {
    case 'off':
      return { METRICS_ENABLED: 'false' };
    case 'metrics':
      return { METRICS_ENABLED: 'true' };
    case 'tracing':
      return {
        METRICS_ENABLED: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      };
  }
}
