import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config';

/** Our families share this prefix; Node's default metrics keep their usual names. */
export const METRIC_PREFIX = 'orchestrator_';

/** What a finished run ended as (the label `status`). */
export type FinishedStatus = 'completed' | 'failed' | 'cancelled';

/** What became of one execution of a step (the label `outcome`). */
export type StepOutcomeLabel = 'completed' | 'failed' | 'retry' | 'waiting' | 'paused';

/** How one webhook delivery attempt ended (the label `outcome`). */
export type DeliveryOutcome =
  '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'refused' | 'error';

/** The values of the database-backed gauges at one refresh. */
export interface DatabaseReadings {
  dueSteps: Array<{ workspaceId: string; count: number; oldestAgeSeconds: number }>;
  pendingApprovals: Array<{ workspaceId: string; count: number }>;
}

/** Label value for what a tenant names once the cap of distinct values is reached. */
export const OTHER_LABEL = 'other';

/**
 * Keeps a label whose values a tenant chooses (workflow names, models, workspaces) bounded: the first
 * `max` distinct values pass through, any later one becomes `other`. A value seen once keeps its
 * series for the life of the process, as Prometheus expects of a counter.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.max) return OTHER_LABEL;
    this.seen.add(raw);
    return raw;
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds: step and HTTP latencies (1 ms to 60 s). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: run durations, from a blink to a run parked for a week on an approval. */
const RUN_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 86_400, 7 * 86_400];

/**
 * The service's Prometheus metrics (README "Metrics"), one registry per application. Code that has
 * something to count calls the methods below; none of them touches the database or waits. With
 * METRICS_ENABLED=false they return at once and /metrics is not served.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private readonly workspaceLabel: boolean;
  private readonly workflows: BoundedLabel;
  private readonly models: BoundedLabel;
  private readonly workspaces: BoundedLabel;
  private slots: () => { capacity: number; inUse: number } = () => ({ capacity: 0, inUse: 0 });

  private readonly runsStarted: Counter;
  private readonly runsFinished: Counter;
  private readonly runDuration: Histogram;
  private readonly stepDuration: Histogram;
  private readonly claimDelay: Histogram;
  private readonly dueSteps: Gauge;
  private readonly dueOldest: Gauge;
  private readonly approvalsPending: Gauge;
  private readonly refreshedAt: Gauge;
  private readonly llmCalls: Counter;
  private readonly llmTokens: Counter;
  private readonly llmCost: Counter;
  private readonly deliveries: Counter;
  private readonly scheduleFires: Counter;
  private readonly scheduleDelay: Histogram;
  private readonly httpDuration: Histogram;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { enabled, workspaceLabel, maxLabelValues } = config.metrics;
    this.enabled = enabled;
    this.workspaceLabel = workspaceLabel;
    this.workflows = new BoundedLabel(maxLabelValues);
    this.models = new BoundedLabel(maxLabelValues);
    this.workspaces = new BoundedLabel(maxLabelValues);
    const ws = workspaceLabel ? ['workspace'] : [];
    const registers = [this.registry];
    const name = (n: string) => `${METRIC_PREFIX}${n}`;

    this.runsStarted = new Counter({
      name: name('runs_started_total'),
      help: 'Runs created (a repeated idempotency key starts none), by definition name.',
      labelNames: [...ws, 'workflow'],
      registers,
    });
    this.runsFinished = new Counter({
      name: name('runs_finished_total'),
      help: 'Runs that reached a final status, by definition name and status.',
      labelNames: [...ws, 'workflow', 'status'],
      registers,
    });
    this.runDuration = new Histogram({
      name: name('run_duration_seconds'),
      help: 'Time from a run being created to its final status, waits and approvals included.',
      labelNames: ['workflow', 'status'],
      buckets: RUN_BUCKETS,
      registers,
    });
    this.stepDuration = new Histogram({
      name: name('step_duration_seconds'),
      help: 'Time one execution of a step took, recording excluded, by step type and outcome.',
      labelNames: ['step_type', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.claimDelay = new Histogram({
      name: name('step_claim_delay_seconds'),
      help: 'Time from a step becoming due to an executor claiming it, by step type.',
      labelNames: ['step_type'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.dueSteps = new Gauge({
      name: name('due_steps'),
      help:
        'Steps due and not claimed by any executor (read from the database on a timer; the same ' +
        'on every replica: aggregate with max).',
      labelNames: ws,
      registers,
    });
    this.dueOldest = new Gauge({
      name: name('due_steps_oldest_age_seconds'),
      help: 'How long the oldest due step has waited to be claimed (0 when none is due).',
      labelNames: ws,
      registers,
    });
    this.approvalsPending = new Gauge({
      name: name('approvals_pending'),
      help: 'Approval requests awaiting a decision (read from the database on a timer).',
      labelNames: ws,
      registers,
    });
    this.refreshedAt = new Gauge({
      name: name('database_gauges_refreshed_timestamp_seconds'),
      help:
        'Unix time of the last successful read of the database-backed gauges; they keep their ' +
        'last values while the database is slow or away.',
      registers,
    });
    // Read at scrape time from the executor's own bookkeeping: no timer, always current.
    const slots = () => this.slots();
    new Gauge({
      name: name('executor_slots'),
      help: 'Step executions this process may run at once (0 when its executor is off).',
      registers,
      collect() {
        this.set(slots().capacity);
      },
    });
    new Gauge({
      name: name('executor_slots_in_use'),
      help: 'Step executions in flight in this process.',
      registers,
      collect() {
        this.set(slots().inUse);
      },
    });
    this.llmCalls = new Counter({
      name: name('llm_calls_total'),
      help: 'Calls to a model (fallbacks count separately), by model and outcome.',
      labelNames: ['model', 'outcome'],
      registers,
    });
    this.llmTokens = new Counter({
      name: name('llm_tokens_total'),
      help: 'Tokens the providers reported, by model and direction (input, output).',
      labelNames: [...ws, 'model', 'direction'],
      registers,
    });
    this.llmCost = new Counter({
      name: name('llm_cost_usd_total'),
      help: 'Cost of model calls in US dollars at the configured prices, by model.',
      labelNames: [...ws, 'model'],
      registers,
    });
    this.deliveries = new Counter({
      name: name('webhook_deliveries_total'),
      help:
        'Webhook delivery attempts by outcome: the status class, or timeout, network, refused ' +
        '(an address the SSRF rules forbid) and error (the attempt could not be made).',
      labelNames: ['outcome'],
      registers,
    });
    this.scheduleFires = new Counter({
      name: name('schedule_fires_total'),
      help:
        'Schedule fires by outcome: started (a run created) or skipped (passed over by the overlap ' +
        'policy, or missed beyond the catch-up window).',
      labelNames: ['outcome'],
      registers,
    });
    this.scheduleDelay = new Histogram({
      name: name('schedule_fire_delay_seconds'),
      help: 'From a fire becoming due (its time plus its jitter) to the scheduler creating its run.',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpDuration = new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'HTTP requests of the API by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    if (enabled) collectDefaultMetrics({ register: this.registry });
  }

  /** The executor reports its slots through this (read at every scrape). */
  observeSlots(source: () => { capacity: number; inUse: number }): void {
    this.slots = source;
  }

  runStarted(workspaceId: string, workflow: string): void {
    if (!this.enabled) return;
    this.runsStarted.inc(
      this.withWorkspace(workspaceId, { workflow: this.workflows.value(workflow) }),
    );
  }

  runFinished(
    workspaceId: string,
    workflow: string,
    status: FinishedStatus,
    createdAt: Date,
  ): void {
    if (!this.enabled) return;
    const name = this.workflows.value(workflow);
    this.runsFinished.inc(this.withWorkspace(workspaceId, { workflow: name, status }));
    const seconds = Math.max(0, (Date.now() - createdAt.getTime()) / 1000);
    this.runDuration.observe({ workflow: name, status }, seconds);
  }

  stepExecuted(stepType: string, outcome: StepOutcomeLabel, seconds: number): void {
    if (!this.enabled) return;
    this.stepDuration.observe({ step_type: stepType, outcome }, seconds);
  }

  /** A scheduler claim's fires: runs started, fires passed over, and the on-time fires' delays. */
  scheduleFired(started: number, skipped: number, delaysSeconds: number[]): void {
    if (!this.enabled) return;
    if (started > 0) this.scheduleFires.inc({ outcome: 'started' }, started);
    if (skipped > 0) this.scheduleFires.inc({ outcome: 'skipped' }, skipped);
    for (const d of delaysSeconds) this.scheduleDelay.observe(Math.max(0, d));
  }

  stepClaimed(stepType: string, delaySeconds: number): void {
    if (!this.enabled) return;
    this.claimDelay.observe({ step_type: stepType }, Math.max(0, delaySeconds));
  }

  llmCall(
    workspaceId: string,
    model: string,
    outcome: 'success' | 'error',
    usage: { inputTokens: number; outputTokens: number; costUsd: number } | null,
  ): void {
    if (!this.enabled) return;
    const m = this.models.value(model);
    this.llmCalls.inc({ model: m, outcome });
    if (!usage) return;
    const labels = this.withWorkspace(workspaceId, { model: m });
    this.llmTokens.inc({ ...labels, direction: 'input' }, usage.inputTokens);
    this.llmTokens.inc({ ...labels, direction: 'output' }, usage.outputTokens);
    this.llmCost.inc(labels, usage.costUsd);
  }

  webhookDelivery(outcome: DeliveryOutcome): void {
    if (!this.enabled) return;
    this.deliveries.inc({ outcome });
  }

  /** `route` is the matched route template, never the raw URL; `(unmatched)` when none matched. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    if (!this.enabled) return;
    const m = METHODS.has(method) ? method : 'other';
    this.httpDuration.observe({ method: m, route, status: String(status) }, seconds);
  }

  /**
   * The database-backed gauges, replaced as a whole at each successful refresh. With the workspace
   * label, workspaces past the label cap add up under `other`.
   */
  databaseRead(readings: DatabaseReadings): void {
    const key = (workspaceId: string) =>
      this.workspaceLabel ? this.workspaces.value(workspaceId) : '';
    const due = new Map<string, { count: number; oldest: number }>();
    for (const d of readings.dueSteps) {
      const k = key(d.workspaceId);
      const sum = due.get(k) ?? { count: 0, oldest: 0 };
      due.set(k, { count: sum.count + d.count, oldest: Math.max(sum.oldest, d.oldestAgeSeconds) });
    }
    const approvals = new Map<string, number>();
    for (const a of readings.pendingApprovals) {
      const k = key(a.workspaceId);
      approvals.set(k, (approvals.get(k) ?? 0) + a.count);
    }
    const labels = (k: string) => (this.workspaceLabel ? { workspace: k } : {});
    this.dueSteps.reset();
    this.dueOldest.reset();
    this.approvalsPending.reset();
    if (!this.workspaceLabel) {
      // Without a label the families always have their one series, 0 when nothing is due.
      this.dueSteps.set(0);
      this.dueOldest.set(0);
      this.approvalsPending.set(0);
    }
    for (const [k, { count, oldest }] of due) {
      this.dueSteps.set(labels(k), count);
      this.dueOldest.set(labels(k), oldest);
    }
    for (const [k, count] of approvals) this.approvalsPending.set(labels(k), count);
    this.refreshedAt.set(Date.now() / 1000);
  }

  /** The text exposition of every family. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private withWorkspace<L extends Record<string, string>>(
    workspaceId: string,
    labels: L,
  ): L | (L & { workspace: string }) {
    return this.workspaceLabel
      ? { ...labels, workspace: this.workspaces.value(workspaceId) }
      : labels;
  }
}
