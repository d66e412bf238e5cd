import { context, diag, DiagLogLevel, ROOT_CONTEXT, type DiagLogger } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import type { IncomingMessage } from 'node:http';
import type { Logger as Pino } from 'pino';
import { createPinoLogger } from '../common/logger';
import type { TracingConfig } from '../config/app-config';
import { markTracingEnabled } from './spans';

/** How long a shutdown waits for the last spans to be exported. */
const SHUTDOWN_FLUSH_MS = 5_000;
/** An exporter that keeps failing logs one warning per this interval, with a count of the rest. */
const WARN_INTERVAL_MS = 60_000;
/** Probes and scrapes: frequent, cheap, and noise in a trace backend. */
const UNTRACED_PATHS = new Set(['/live', '/ready', '/metrics']);

export interface TracingHandle {
  /** For the start-up line: where spans go and how they are sampled. */
  description: string;
  /** Exports the spans still queued, waiting SHUTDOWN_FLUSH_MS at most. */
  shutdown(): Promise<void>;
}

function buildSampler(name: TracingConfig['sampler'], ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/**
 * OTel's own problems (an unreachable or refusing collector, a dropped batch) as warnings in our log:
 * the first at once, then at most one per WARN_INTERVAL_MS with the number left out. Exports run in
 * the background (batch processor), so a failing collector costs these lines and nothing else.
 */
class WarningDiagLogger implements DiagLogger {
  private lastAt = 0;
  private suppressed = 0;

  constructor(private readonly log: Pino) {}

  error(message: string, ...args: unknown[]): void {
    this.write(message, args);
  }
  warn(message: string, ...args: unknown[]): void {
    this.write(message, args);
  }
  info(): void {}
  debug(): void {}
  verbose(): void {}

  private write(message: string, args: unknown[]): void {
    const now = Date.now();
    if (now - this.lastAt < WARN_INTERVAL_MS) {
      this.suppressed++;
      return;
    }
    const detail = args
      .map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? readable(a) : ''))
      .filter(Boolean)
      .join(' ');
    const suppressed = this.suppressed;
    this.lastAt = now;
    this.suppressed = 0;
    // Outside any span: an export runs in the context of the span that started its timer, and the
    // warning is not that request's.
    context.with(ROOT_CONTEXT, () =>
      this.log.warn(
        { context: 'Tracing', ...(suppressed ? { suppressed } : {}) },
        `tracing: ${[readable(message), detail].filter(Boolean).join(' ')}`.slice(0, 1000),
      ),
    );
  }
}

/**
 * OTel reports a failed export as the exception serialised to JSON, stack included: the message (or
 * the stack's first line) is what the operator needs.
 */
function readable(message: string): string {
  if (!message.startsWith('{')) return message;
  try {
    const parsed = JSON.parse(message) as { message?: unknown; stack?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.stack === 'string') return parsed.stack.split('\n')[0];
  } catch {
    // Not JSON after all: logged as it is.
  }
  return message;
}

/** The route template Express matched (`/v1/workflow-runs/:id`), never the raw URL. */
function routeOf(request: unknown): string | undefined {
  const route = (request as { route?: { path?: unknown } }).route?.path;
  return typeof route === 'string' ? route : undefined;
}

/**
 * Registers the tracer provider, the OTLP/HTTP exporter behind a batch processor (bounded queue,
 * exporter timeout: OTEL_BSP_* and OTEL_EXPORTER_OTLP_TIMEOUT apply) and the HTTP and pg
 * instrumentations. Must run before `http`, `pg` and `express` are first required (src/main.ts
 * imports ./register first).
 */
export function startTracing(config: TracingConfig, logLevel: string): TracingHandle {
  diag.setLogger(new WarningDiagLogger(createPinoLogger(logLevel)), DiagLogLevel.WARN);
  const exporterConfig = { url: config.url, headers: config.headers };
  const exporter =
    config.protocol === 'http/json'
      ? new OtlpJsonExporter(exporterConfig)
      : new OtlpProtoExporter(exporterConfig);
  const provider = new NodeTracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': config.serviceName }))
      // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, k8s.pod.name...) and OTEL_SERVICE_NAME.
      .merge(detectResources({ detectors: [envDetector] })),
    sampler: buildSampler(config.sampler, config.samplerArg),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Also installs the AsyncLocalStorage context manager and the W3C traceparent propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        // Outgoing requests (the http task handler, webhook deliveries) are traced, and carry
        // `traceparent`, inside a step or delivery span only.
        requireParentforOutgoingSpans: true,
        applyCustomAttributesOnSpan: (span, request) => {
          const route = routeOf(request);
          const method = (request as IncomingMessage).method;
          if (route && method && 'route' in request) {
            span.setAttribute('http.route', route);
            span.updateName(`${method} ${route}`);
          }
        },
      }),
      // Queries inside a request, step or delivery span only: the claim and poll loops run outside
      // any span (LeasedPoller.wake), so an idle service exports nothing.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  markTracingEnabled();
  return {
    description:
      `tracing on: spans to ${config.url} (${config.protocol}), service ${config.serviceName}, ` +
      `sampler ${config.sampler}` +
      (config.sampler.endsWith('traceidratio') ? ` ${config.samplerArg}` : ''),
    shutdown: () =>
      Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_FLUSH_MS).unref()),
      ]),
  };
}
