import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * The spans the service makes itself (README "Tracing"): step executions, LLM calls and webhook
 * deliveries. HTTP requests, outgoing HTTP and database queries come from the instrumentations that
 * `./sdk` registers. Only `@opentelemetry/api` is imported here: with tracing off, each helper
 * checks one flag and calls its function directly, so no span object is made and no SDK is loaded.
 */

let enabled = false;

/** Called by `./sdk` once the tracer provider is registered. */
export function markTracingEnabled(): void {
  enabled = true;
}

export function tracingEnabled(): boolean {
  return enabled;
}

const tracer = () => trace.getTracer('workflow-orchestrator');

/** Longest status message or error text put on a span: spans carry no state, outputs or prompts. */
const MAX_MESSAGE_CHARS = 256;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A W3C `traceparent` (version 00) as a remote span context, or undefined when it is not well-formed
 * (lowercase hex only; the all-zero trace and span ids are invalid, per the W3C Trace Context
 * recommendation).
 */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return undefined;
  return {
    traceId: m[1],
    spanId: m[2],
    traceFlags: parseInt(m[3], 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
}

function formatTraceparent(ctx: SpanContext): string {
  const flags = (ctx.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${ctx.traceId}-${ctx.spanId}-${flags}`;
}

/**
 * What a new run stores as its `traceparent`: with tracing on, the span of the request that creates
 * it (the HTTP server span, itself a child of the caller's `traceparent` when one was sent); with
 * tracing off, the caller's `traceparent` header when it is well-formed, so that executors with
 * tracing on still link the run's steps to the caller's trace. Otherwise null.
 */
export function traceparentForRun(header: unknown): string | null {
  if (enabled) {
    const active = trace.getActiveSpan()?.spanContext();
    if (active && trace.isSpanContextValid(active)) return formatTraceparent(active);
  }
  const given = parseTraceparent(header);
  return given ? formatTraceparent(given) : null;
}

function linksTo(traceparent: string | null | undefined): Link[] | undefined {
  const linked = parseTraceparent(traceparent);
  return linked ? [{ context: linked }] : undefined;
}

function truncate(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

/**
 * Ends `span` with the error status when `fn` throws; `fn` runs with the span active. A span the
 * sampler dropped is not made active: `fn` runs outside any trace, so that its queries and outgoing
 * requests make no spans either (the instrumentations need a parent). Making a dropped span active
 * would have every query build and discard one: at 10% sampling (bench scenario 1(b), 4 x 1,000 runs),
 * the executor's CPU per step went from 0.21 to 0.19 ms (0.15 with tracing off).
 */
async function inSpan<T>(span: Span, parent: Context, fn: () => Promise<T>): Promise<T> {
  if (!span.isRecording()) {
    span.end();
    return fn();
  }
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    if (span.isRecording()) {
      const message = err instanceof Error ? err.message : String(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(message) });
      span.setAttribute('error.type', err instanceof Error ? err.name : 'Error');
    }
    throw err;
  } finally {
    span.end();
  }
}

/**
 * One statement run for several requests (a `Batcher`'s batch; `contexts` are the requests' contexts
 * when they queued, in the batch's order), so that its query span lands in the trace of a request it
 * serves, never in that of a request from an earlier batch (whose context a promise callback would
 * carry). A statement of one request runs in that request's context, traced as it would be without
 * batching. A statement shared by two or more requests gets a span `name` in the first sampled
 * request's trace, with the query below it, and one in each other sampled request's trace, linked to
 * it: every request's trace shows the statement it waited for. With none sampled, it runs in the
 * first request's context (and the query makes no span, as for any request sampled out).
 */
export function traceBatch<T>(
  name: string,
  contexts: readonly Context[],
  fn: () => Promise<T>,
): Promise<T> {
  if (!enabled || contexts.length === 0) return fn();
  const sampled = contexts.length > 1 ? contexts.filter(isRecording) : [];
  if (sampled.length === 0) return context.with(contexts[0], fn);
  const attributes = { 'workflow.batch.size': contexts.length };
  const carrier = tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes }, sampled[0]);
  const links = [{ context: carrier.spanContext() }];
  const riders = sampled
    .slice(1)
    .map((parent) =>
      tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes, links }, parent),
    );
  // In that request's context even if the carrier is not recording (inSpan then runs fn as it is).
  const settled = context.with(sampled[0], () => inSpan(carrier, sampled[0], fn));
  return settled.then(
    (result) => {
      for (const span of riders) span.end();
      return result;
    },
    (err: unknown) => {
      const message = truncate(err instanceof Error ? err.message : String(err));
      for (const span of riders) {
        span.setStatus({ code: SpanStatusCode.ERROR, message });
        span.end();
      }
      throw err;
    },
  );
}

function isRecording(ctx: Context): boolean {
  return trace.getSpan(ctx)?.isRecording() ?? false;
}

/** The step run an execution span describes (the executor's claimed step). */
export interface TracedStep {
  id: string;
  runId: string;
  workspaceId: string;
  stepIndex: number;
  stepName: string;
  stepType: string;
  attempt: number;
  run: { traceparent?: string | null };
}

/**
 * One step execution as a span `step <type>`. Always a new trace root (whatever context the claim
 * loop had), linked to the run's stored traceparent: a run that waits for days makes one short trace
 * per step, each joined to the request that created the run by its link.
 */
export function traceStep<T>(step: TracedStep, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const span = tracer().startSpan(
    `step ${step.stepType}`,
    {
      kind: SpanKind.INTERNAL,
      root: true,
      links: linksTo(step.run.traceparent),
      attributes: {
        'workflow.step.name': step.stepName,
        'workflow.step.type': step.stepType,
        'workflow.step.index': step.stepIndex,
        'workflow.step.attempt': step.attempt,
        'workflow.step_run.id': step.id,
        'workflow.run.id': step.runId,
        'workflow.workspace.id': step.workspaceId,
      },
    },
    ROOT_CONTEXT,
  );
  return inSpan(span, ROOT_CONTEXT, fn);
}

/** Records what a step execution came to on its span: `complete`, `wait`, `pause` or `fail`. */
export function recordStepOutcome(outcome: { kind: string; error?: string }): void {
  const span = enabled ? trace.getActiveSpan() : undefined;
  if (!span?.isRecording()) return;
  span.setAttribute('workflow.step.outcome', outcome.kind);
  if (outcome.kind === 'fail') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(outcome.error ?? 'failed') });
  }
}

/**
 * One call of a model (with its tool round trips) as a child of the step span, named and attributed
 * after the GenAI semantic conventions (`chat <model>`, `gen_ai.*`); `recordLlmUsage` adds tokens and
 * cost once the provider answered. `fn`'s result says whether the call succeeded.
 */
export function traceLlmCall<T extends { ok: boolean; reason?: string }>(
  model: { provider: string; modelId: string },
  fn: () => Promise<T>,
): Promise<T> {
  if (!enabled) return fn();
  const parent = context.active();
  // A call in a step the sampler dropped runs outside any trace, like the rest of that step.
  if (!trace.getSpan(parent)?.isRecording()) return fn();
  const span = tracer().startSpan(
    `chat ${model.modelId}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': model.provider,
        'gen_ai.system': model.provider,
        'gen_ai.request.model': model.modelId,
      },
    },
    parent,
  );
  return inSpan(span, parent, async () => {
    const result = await fn();
    if (!result.ok && span.isRecording()) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(result.reason ?? 'failed') });
    }
    return result;
  });
}

/** Tokens as the provider reported them and the priced cost, on the active LLM call span. */
export function recordLlmUsage(inputTokens: number, outputTokens: number, costUsd: number): void {
  const span = enabled ? trace.getActiveSpan() : undefined;
  if (!span?.isRecording()) return;
  span.setAttributes({
    'gen_ai.usage.input_tokens': inputTokens,
    'gen_ai.usage.output_tokens': outputTokens,
    'workflow.llm.cost_usd': costUsd,
  });
}

/** The webhook delivery attempt a span describes (the sender's claimed row). */
export interface TracedDelivery {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_type: string;
  attempts: number;
  url: string;
  run_traceparent?: string | null;
}

/**
 * One webhook delivery attempt as a new trace root `webhook <event>`, linked to its run's stored
 * traceparent when there is one. The POST below it is the HTTP instrumentation's client span, whose
 * `traceparent` the receiver gets. The endpoint appears as its host only (its path may hold a token).
 */
export function traceDelivery<T>(delivery: TracedDelivery, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const attributes: Attributes = {
    'workflow.webhook.event': delivery.event_type,
    'workflow.webhook.id': delivery.webhook_id,
    'workflow.webhook.delivery.id': delivery.id,
    'workflow.webhook.attempt': delivery.attempts,
    'workflow.workspace.id': delivery.workspace_id,
  };
  try {
    const url = new URL(delivery.url);
    attributes['server.address'] = url.hostname;
    if (url.port) attributes['server.port'] = Number(url.port);
  } catch {
    // A stored URL was validated when the webhook was created; nothing to add otherwise.
  }
  const span = tracer().startSpan(
    `webhook ${delivery.event_type}`,
    {
      kind: SpanKind.INTERNAL,
      root: true,
      links: linksTo(delivery.run_traceparent),
      attributes,
    },
    ROOT_CONTEXT,
  );
  return inSpan(span, ROOT_CONTEXT, fn);
}

/** What a delivery attempt came to, on the active delivery span. */
export function recordDeliveryOutcome(
  result:
    { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string },
): void {
  const span = enabled ? trace.getActiveSpan() : undefined;
  if (!span?.isRecording()) return;
  span.setAttribute('workflow.webhook.outcome', result.ok ? 'delivered' : 'failed');
  if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
  if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(result.error) });
}
