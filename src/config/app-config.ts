import { isIP } from 'node:net';
import os from 'node:os';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { MAX_TIMER_MS } from '../common/timers';
import { EXPRESSION_TIMEOUT_MS as DEFAULT_EXPRESSION_TIMEOUT_MS } from '../common/jsonata';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
};

/** A request body is at most 1 MiB, so no size limit on a part of one needs to be larger. */
const MAX_JSON_LIMIT_BYTES = 1024 * 1024;

export function defaultExpressionWorkers(): number {
  return Math.max(2, os.availableParallelism());
}

const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const toNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value.trim()))
    ? Number(value.trim())
    : value;

/** The samplers of the OpenTelemetry specification that the SDK builds (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** APPROVAL_MAX_TIMEOUT_MS's default: 30 days. */
export const DEFAULT_APPROVAL_MAX_TIMEOUT_MS = 2_592_000_000;

/** Stripe keeps keys a day; a month is the most that is kept (the table grows with the retention). */
const MAX_IDEMPOTENCY_TTL_MS = 30 * 24 * 3600 * 1000;

/** Caps on stored JSON stay well under what one jsonb value may hold (255 MB). */
const MAX_STORED_JSON_BYTES = 128 * 1024 * 1024;

/**
 * Every environment variable the service reads (design §1). Validated once at boot: a bad value stops
 * the process with a message naming each offending variable.
 */
export class EnvironmentVariables {
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
  DATABASE_URL?: string;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60000)
  DATABASE_CONNECT_TIMEOUT_MS = 5000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'must be at least 8 characters' })
  ADMIN_TOKEN?: string;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_MAX = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_TIMER_MS)
  RATE_LIMIT_WINDOW_MS = 60000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** Parsed and checked by parseTrustProxy: `false`, a hop count, or addresses and CIDRs. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** Active API keys kept in memory per process (README "API key cache"); 0 turns the cache off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  API_KEY_CACHE_SIZE = 10_000;

  // Idempotent requests (README "Idempotent requests"): how long an Idempotency-Key's first answer is
  // kept, how long an identical request waits for one still in progress, when a claim left by a
  // process that died is taken over, and how often expired keys are deleted.
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(MAX_IDEMPOTENCY_TTL_MS)
  IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  IDEMPOTENCY_WAIT_MS = 5000;

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(MAX_TIMER_MS)
  IDEMPOTENCY_CLAIM_LEASE_MS = 60_000;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(MAX_TIMER_MS)
  IDEMPOTENCY_CLEANUP_INTERVAL_MS = 60_000;

  @Transform(toBool)
  @IsBoolean()
  EXECUTOR_ENABLED = true;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  EXECUTOR_CONCURRENCY = 32;

  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(MAX_TIMER_MS)
  EXECUTOR_POLL_INTERVAL_MS = 500;

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(MAX_TIMER_MS)
  STEP_LEASE_MS = 30000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  STEP_RECORD_MAX_FAILURES = 3;

  /** Default: one per core, at least two, so that one stuck expression never holds every worker. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  EXPRESSION_WORKERS = defaultExpressionWorkers();

  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(60000)
  EXPRESSION_TIMEOUT_MS = DEFAULT_EXPRESSION_TIMEOUT_MS;

  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(4096)
  EXPRESSION_MEMORY_MB = 128;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_STORED_JSON_BYTES)
  STEP_RESULT_MAX_BYTES = 1_048_576;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_STORED_JSON_BYTES)
  RUN_STATE_MAX_BYTES = 4_194_304;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  EXPRESSION_MAX_RESULT_BYTES = 1024 * 1024;

  /** 0: no limit beyond fair sharing (a lone workspace may take every slot). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  WORKSPACE_MAX_CONCURRENT_STEPS = 0;

  /** false: this process starts no scheduled runs (another replica's scheduler does). */
  @Transform(toBool)
  @IsBoolean()
  SCHEDULER_ENABLED = true;

  /** How often due schedules are looked for; a fire starts at most about this late. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(60_000)
  SCHEDULER_POLL_INTERVAL_MS = 500;

  /** Schedules claimed per transaction: bounds how long one claim holds its row locks. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  SCHEDULER_BATCH_SIZE = 100;
  /**
   * How deep `workflow` steps may nest runs (a run started by a run started by ...): a run at this
   * depth cannot start a child. Bounds what one API call can set going, and the cost of the lineage
   * walk each child start makes.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(50)
  WORKFLOW_MAX_DEPTH = 5;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OPENAI_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  OPENAI_BASE_URL = 'https://api.openai.com/v1';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  ANTHROPIC_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_PRICING_JSON?: string;

  /** Output tokens a budget reserves for a call of an llm step without maxTokens. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  LLM_BUDGET_DEFAULT_MAX_TOKENS = 4096;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*\d+\s*(,\s*\d+\s*)*$/, { message: 'must be a comma-separated list of integers' })
  WEBHOOK_RETRY_DELAYS_MS = '0,5000,30000';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_TIMER_MS)
  WEBHOOK_TIMEOUT_MS = 10000;

  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_ENDPOINT_CONCURRENCY = 4;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  ENCRYPTION_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  ENCRYPTION_KEY_PREVIOUS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toBool)
  @IsBoolean()
  METRICS_ENABLED = true;

  /** Unset: /metrics is served on PORT. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(MAX_TIMER_MS)
  METRICS_DATABASE_REFRESH_MS = 15_000;

  @Transform(toBool)
  @IsBoolean()
  METRICS_WORKSPACE_LABEL = false;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  METRICS_MAX_LABEL_VALUES = 200;
  // OpenTelemetry tracing (README "Tracing"): the standard variables of the OTel specification. Set,
  // either endpoint turns tracing on; both unset, no tracing code is loaded.
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^/]/, { message: 'must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^/]/, { message: 'must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['http/protobuf', 'http/json'], {
    message: 'must be http/protobuf or http/json (grpc is not supported)',
  })
  OTEL_EXPORTER_OTLP_PROTOCOL = 'http/protobuf';

  /** `key=value` pairs, comma-separated, values URL-encoded (parsed by parseOtlpHeaders). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OTEL_EXPORTER_OTLP_HEADERS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OTEL_SERVICE_NAME = 'workflow-orchestrator';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(TRACE_SAMPLERS, { message: `must be one of ${TRACE_SAMPLERS.join(', ')}` })
  OTEL_TRACES_SAMPLER: TraceSampler = 'parentbased_always_on';

  /** The ratio of the `*traceidratio` samplers. */
  @Transform(toNumber)
  @IsOptional()
  @IsNumber({}, { message: 'must be a number from 0 to 1' })
  @Min(0, { message: 'must be a number from 0 to 1' })
  @Max(1, { message: 'must be a number from 0 to 1' })
  OTEL_TRACES_SAMPLER_ARG = 1;

  /** Package names or paths, comma-separated; each entry is resolved and loaded by src/extensions.ts. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  EXTENSION_MODULES?: string;

  // What a workspace may store (README "Limits on stored data"): each bounds the worst case of a list
  // the contract answers without pagination, or of a run's page.
  @Transform(toInt)
  @IsInt()
  @Min(1)
  MAX_DEFINITIONS_PER_WORKSPACE = 500;

  /** Bounds the scheduler's work per workspace and the schedules list. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  MAX_SCHEDULES_PER_WORKSPACE = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_JSON_LIMIT_BYTES)
  MAX_DEFINITION_BYTES = 65_536;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_JSON_LIMIT_BYTES)
  MAX_RUN_INPUT_BYTES = 262_144;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_JSON_LIMIT_BYTES)
  MAX_SIGNAL_PAYLOAD_BYTES = 65_536;

  /** Signals a run holds buffered for its external_event steps (README "Signals"). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  MAX_BUFFERED_SIGNALS_PER_RUN = 100;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(MAX_JSON_LIMIT_BYTES)
  MAX_APPROVAL_CONTENT_BYTES = 65_536;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  MAX_PENDING_APPROVALS_PER_WORKSPACE = 500;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  APPROVAL_LIST_MAX_ITEMS = 500;

  /** A due time kept in PostgreSQL, not a timer: up to a year (MAX_DUE_IN_MS of the steps). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(31_536_000_000)
  APPROVAL_MAX_TIMEOUT_MS = DEFAULT_APPROVAL_MAX_TIMEOUT_MS;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  EXECUTOR_DEFINITION_CACHE_BYTES = 67_108_864;

  // Live run events (README "Live run events"): each open stream holds a connection and a little
  // memory until its run ends, so both are capped; 429 past a cap.
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  SSE_MAX_STREAMS = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  SSE_MAX_STREAMS_PER_WORKSPACE = 100;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(MAX_TIMER_MS)
  SSE_HEARTBEAT_MS = 15_000;

  @Transform(toInt)
  @IsInt()
  @Min(16_384)
  @Max(64 * 1024 * 1024)
  SSE_MAX_BUFFERED_BYTES = 1_048_576;

  // The console (README "Console sessions"). A session lasts a working day by default: long enough not
  // to interrupt a review, short enough that a forgotten browser does not hold a key for weeks.
  @Transform(toInt)
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3600 * 1000)
  CONSOLE_SESSION_TTL_MS = 12 * 3600 * 1000;

  /** Origins, comma-separated; parsed and checked by parseOrigins. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  CONSOLE_ALLOWED_ORIGINS?: string;

  /** Bounds one answer of GET /v1/cost/timeseries: points are at most buckets x models. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  COST_SERIES_MAX_BUCKETS = 1000;
}

export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** The validated, typed configuration handed to every module. */
export interface AppConfig {
  port: number;
  databaseUrl?: string;
  /** How long a request waits for a database connection before it is answered 503. */
  databaseConnectTimeoutMs: number;
  adminToken?: string;
  rateLimit: { max: number; windowMs: number };
  redisUrl?: string;
  /**
   * Express's `trust proxy` (README "Behind a proxy"): `false` takes the TCP peer as the client; a hop
   * count trusts that many proxies in front; a list trusts proxies at those addresses or CIDRs.
   */
  trustProxy: TrustProxy;
  /**
   * Active API keys kept per process (README "API key cache"), used only by routes whose statements
   * check the key is still active; 0: off.
   */
  apiKeyCacheSize: number;
  /** The Idempotency-Key header on POST, PATCH and DELETE (README "Idempotent requests"). */
  idempotency: {
    /** How long a key's first answer is kept and replayed, from the first request. */
    ttlMs: number;
    /** How long a request waits for an identical one in progress before 409. */
    waitMs: number;
    /** An in-progress claim older than this is taken over by the next identical request. */
    claimLeaseMs: number;
    /** How often the replica holding the cleanup lease deletes expired keys. */
    cleanupIntervalMs: number;
  };
  executor: {
    enabled: boolean;
    concurrency: number;
    pollIntervalMs: number;
    leaseMs: number;
    /** Executions of a step whose outcome was not recorded before it fails for good. */
    recordMaxFailures: number;
    /** The output and state changes of one step, as JSON. */
    resultMaxBytes: number;
    /** A run's state, as JSON. */
    stateMaxBytes: number;
    /** Steps one workspace may run at once in this process; unset: no limit. */
    workspaceMaxSteps?: number;
    /** How deep child runs (`workflow` steps) may nest; a root run has depth 0. */
    workflowMaxDepth: number;
  };
  /** The scheduler (src/schedules) that starts the runs of due schedules. */
  scheduler: { enabled: boolean; pollIntervalMs: number; batchSize: number };
  /** The expression sandbox (src/expressions) that evaluates tenant JSONata. */
  expressions: { workers: number; timeoutMs: number; memoryMb: number; maxResultBytes: number };
  openai: { apiKey?: string; baseUrl: string };
  anthropic: { apiKey?: string; baseUrl: string };
  llmPricing: Record<string, ModelPrice>;
  /** LLM budgets (README "Budgets"). */
  budgets: {
    /** Output tokens reserved for a call whose step sets no maxTokens. */
    defaultMaxTokens: number;
  };
  webhooks: {
    retryDelaysMs: number[];
    timeoutMs: number;
    allowPrivateNetworks: boolean;
    /** Attempts in flight to one webhook per process. */
    endpointConcurrency: number;
  };
  /**
   * Keys for secrets at rest (webhook secrets): `key` encrypts and decrypts, `previousKeys` only
   * decrypt (rotation). No key: secrets are stored in plain text.
   */
  encryption: { key?: Buffer; previousKeys: Buffer[] };
  logLevel: string;
  metrics: {
    enabled: boolean;
    /** A port of its own for /metrics; unset: served on the API's port. */
    port?: number;
    /** How often the database-backed gauges (backlog, pending approvals) are read. */
    databaseRefreshMs: number;
    /** A `workspace` label on the per-workspace families. */
    workspaceLabel: boolean;
    /** Distinct values of a tenant-chosen label (workflow, model, workspace) before `other`. */
    maxLabelValues: number;
  };
  /** OpenTelemetry tracing; unset when no OTLP endpoint is configured (tracing off). */
  tracing?: TracingConfig;
  /**
   * Nest modules loaded at boot (README "Extending the service"): package names or paths as written,
   * paths relative to the working directory. Unset: none.
   */
  extensionModules?: string[];
  limits: StorageLimits;
  /** GET /v1/workflow-runs/:id/events/stream. */
  eventStreams: EventStreamLimits;
  /** Console sessions (design §12). */
  console: {
    /** How long a session cookie is accepted after sign-in. */
    sessionTtlMs: number;
    /**
     * Origins (`scheme://host[:port]`, lower case) accepted beside the service's own for
     * cookie-authenticated changes: for proxies that rewrite Host.
     */
    allowedOrigins: string[];
  };
  costs: {
    /** Buckets one cost time series may span. */
    seriesMaxBuckets: number;
  };
}

/** The live event streams' caps and timing (README "Live run events"). */
export interface EventStreamLimits {
  /** Streams open at once in this process. */
  maxStreams: number;
  /** Streams open at once per workspace in this process. */
  maxPerWorkspace: number;
  /** How often an idle stream gets a `: keep-alive` comment. */
  heartbeatMs: number;
  /** Bytes written to a stream and not yet taken by its client before the stream is dropped. */
  maxBufferedBytes: number;
}

/** Where and how spans are exported (README "Tracing"). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else the base endpoint + /v1/traces. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Sent with every export (an authentication header, typically); never logged. */
  headers: Record<string, string>;
  serviceName: string;
  sampler: TraceSampler;
  /** The ratio of the `*traceidratio` samplers. */
  samplerArg: number;
}

/** Per-workspace storage limits; `*Bytes` count the UTF-8 bytes of the value's JSON. */
export interface StorageLimits {
  definitionsPerWorkspace: number;
  schedulesPerWorkspace: number;
  definitionBytes: number;
  runInputBytes: number;
  signalPayloadBytes: number;
  /** Signals one run may hold buffered (POST …/signals past it: 409). */
  bufferedSignalsPerRun: number;
  approvalContentBytes: number;
  pendingApprovalsPerWorkspace: number;
  /** Approval requests one answer of GET /v1/approval-requests holds at most (the newest). */
  approvalListMaxItems: number;
  /** The longest `timeoutMs` (and `escalateTo.timeoutMs`) an approval step may set. */
  approvalMaxTimeoutMs: number;
  /** Approximate bytes of definition steps the executor keeps in memory; 0 disables the cache. */
  definitionCacheBytes: number;
}

export type TrustProxy = false | number | string[];

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * `OTEL_EXPORTER_OTLP_HEADERS` as the OTel specification writes it: `key=value` pairs separated by
 * commas, values URL-encoded. Undefined when malformed.
 */
export function parseOtlpHeaders(raw: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim();
    if (eq < 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined;
    try {
      headers[name] = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return headers;
}

/** On when either OTLP endpoint is set; the signal-specific one is used as is (OTel specification). */
function tracingConfig(vars: EnvironmentVariables, problems: string[]): TracingConfig | undefined {
  const headers = parseOtlpHeaders(vars.OTEL_EXPORTER_OTLP_HEADERS ?? '');
  if (!headers) {
    problems.push(
      'OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs separated by commas (values URL-encoded)',
    );
  }
  const base = vars.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined || !headers) return undefined;
  return {
    url,
    protocol: vars.OTEL_EXPORTER_OTLP_PROTOCOL as TracingConfig['protocol'],
    headers,
    serviceName: vars.OTEL_SERVICE_NAME,
    sampler: vars.OTEL_TRACES_SAMPLER,
    samplerArg: vars.OTEL_TRACES_SAMPLER_ARG,
  };
}

function parsePricing(raw: string | undefined, problems: string[]): Record<string, ModelPrice> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('LLM_PRICING_JSON: must be valid JSON');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('LLM_PRICING_JSON: must be a JSON object keyed by model');
    return {};
  }
  const out: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(parsed as Record<string, unknown>)) {
    const p = price as Partial<ModelPrice> | null;
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (!p || typeof p !== 'object' || !ok(p.inputPerMillion) || !ok(p.outputPerMillion)) {
      problems.push(
        `LLM_PRICING_JSON: "${model}" needs numeric inputPerMillion and outputPerMillion >= 0`,
      );
      continue;
    }
    out[model] = { inputPerMillion: p.inputPerMillion, outputPerMillion: p.outputPerMillion };
  }
  return out;
}

/** Hop counts past this are a mistake (no request crosses 100 proxies), not a configuration. */
const MAX_TRUSTED_HOPS = 100;
/** The names Express (proxy-addr) knows for address ranges. */
const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const TRUST_PROXY_HINT =
  'must be false, a hop count (1-100), or comma-separated addresses or CIDRs of the trusted proxies';

function isAddressOrCidr(entry: string): boolean {
  if (TRUST_PROXY_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: off unless set. `true` (trust every hop) is refused: it takes the left-most
 * X-Forwarded-For entry, which any client writes itself.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === 'false' || value === '0') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops <= MAX_TRUSTED_HOPS) return hops;
    problems.push(`TRUST_PROXY: ${TRUST_PROXY_HINT}`);
    return false;
  }
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (entries.length === 0 || bad.length > 0) {
    const which = bad.length > 0 ? ` (not an address or CIDR: ${bad.join(', ')})` : '';
    problems.push(`TRUST_PROXY: ${TRUST_PROXY_HINT}${which}`);
    return false;
  }
  return entries;
}

/** AES-256 keys: the base64 (standard or URL-safe) of exactly 32 bytes. */
const ENCRYPTION_KEY_FORMAT = /^[A-Za-z0-9+/_-]{43}=?$/;
const ENCRYPTION_KEY_HINT =
  'must be the base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)';

/** Parses ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS; the messages never echo a key. */
function parseEncryptionKeys(
  current: string | undefined,
  previous: string | undefined,
  problems: string[],
): AppConfig['encryption'] {
  const decode = (value: string) => Buffer.from(value.trim(), 'base64');
  const valid = (value: string) => ENCRYPTION_KEY_FORMAT.test(value.trim());
  let key: Buffer | undefined;
  if (current !== undefined) {
    if (valid(current)) key = decode(current);
    else problems.push(`ENCRYPTION_KEY: ${ENCRYPTION_KEY_HINT}`);
  }
  const previousKeys: Buffer[] = [];
  if (previous !== undefined) {
    const parts = previous.split(',').filter((p) => p.trim() !== '');
    const bad = parts.map((p, i) => (valid(p) ? -1 : i + 1)).filter((i) => i > 0);
    if (bad.length > 0) {
      problems.push(
        `ENCRYPTION_KEY_PREVIOUS: entry ${bad.join(', ')} of the comma-separated list ${ENCRYPTION_KEY_HINT}`,
      );
    } else {
      previousKeys.push(...parts.map(decode));
    }
  }
  return { key, previousKeys };
}

/**
 * CONSOLE_ALLOWED_ORIGINS: comma-separated `http(s)://host[:port]` origins, as browsers write them in
 * `Origin` (no path, no trailing slash), kept in lower case.
 */
function parseOrigins(raw: string | undefined, problems: string[]): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = entries.filter((e) => {
    try {
      const url = new URL(e);
      return !/^https?:$/.test(url.protocol) || url.origin !== e.toLowerCase();
    } catch {
      return true;
    }
  });
  if (bad.length > 0) {
    problems.push(
      `CONSOLE_ALLOWED_ORIGINS: must be comma-separated origins such as https://console.example.com ` +
        `(scheme, host and port only; not an origin: ${bad.join(', ')})`,
    );
    return [];
  }
  return entries.map((e) => e.toLowerCase());
}

/** The names of every variable of design §1, in the order of the README's table. */
export const CONFIG_VARIABLES = [
  'PORT',
  'DATABASE_URL',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'ADMIN_TOKEN',
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_WINDOW_MS',
  'REDIS_URL',
  'TRUST_PROXY',
  'API_KEY_CACHE_SIZE',
  'IDEMPOTENCY_KEY_TTL_MS',
  'IDEMPOTENCY_WAIT_MS',
  'IDEMPOTENCY_CLAIM_LEASE_MS',
  'IDEMPOTENCY_CLEANUP_INTERVAL_MS',
  'EXECUTOR_ENABLED',
  'EXECUTOR_CONCURRENCY',
  'EXECUTOR_POLL_INTERVAL_MS',
  'STEP_LEASE_MS',
  'STEP_RECORD_MAX_FAILURES',
  'STEP_RESULT_MAX_BYTES',
  'RUN_STATE_MAX_BYTES',
  'EXPRESSION_WORKERS',
  'EXPRESSION_TIMEOUT_MS',
  'EXPRESSION_MEMORY_MB',
  'EXPRESSION_MAX_RESULT_BYTES',
  'WORKSPACE_MAX_CONCURRENT_STEPS',
  'SCHEDULER_ENABLED',
  'SCHEDULER_POLL_INTERVAL_MS',
  'SCHEDULER_BATCH_SIZE',
  'WORKFLOW_MAX_DEPTH',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'LLM_PRICING_JSON',
  'LLM_BUDGET_DEFAULT_MAX_TOKENS',
  'WEBHOOK_RETRY_DELAYS_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_ENDPOINT_CONCURRENCY',
  'ENCRYPTION_KEY',
  'ENCRYPTION_KEY_PREVIOUS',
  'LOG_LEVEL',
  'METRICS_ENABLED',
  'METRICS_PORT',
  'METRICS_DATABASE_REFRESH_MS',
  'METRICS_WORKSPACE_LABEL',
  'METRICS_MAX_LABEL_VALUES',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_SERVICE_NAME',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'EXTENSION_MODULES',
  'MAX_DEFINITIONS_PER_WORKSPACE',
  'MAX_SCHEDULES_PER_WORKSPACE',
  'MAX_DEFINITION_BYTES',
  'MAX_RUN_INPUT_BYTES',
  'MAX_SIGNAL_PAYLOAD_BYTES',
  'MAX_BUFFERED_SIGNALS_PER_RUN',
  'MAX_APPROVAL_CONTENT_BYTES',
  'MAX_PENDING_APPROVALS_PER_WORKSPACE',
  'APPROVAL_LIST_MAX_ITEMS',
  'APPROVAL_MAX_TIMEOUT_MS',
  'EXECUTOR_DEFINITION_CACHE_BYTES',
  'SSE_MAX_STREAMS',
  'SSE_MAX_STREAMS_PER_WORKSPACE',
  'SSE_HEARTBEAT_MS',
  'SSE_MAX_BUFFERED_BYTES',
  'CONSOLE_SESSION_TTL_MS',
  'CONSOLE_ALLOWED_ORIGINS',
  'COST_SERIES_MAX_BUCKETS',
] as const;

const TYPE_RULES = ['isInt', 'isBoolean', 'isString'];

/** Validates an environment (process.env by default) and returns the typed configuration. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const relevant: Record<string, string> = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name];
    // An empty value (`PORT=` in an env file, `${PORT}` of an unset variable) means "use the default".
    if (value !== undefined && value.trim() !== '') relevant[name] = value;
  }
  const vars = plainToInstance(EnvironmentVariables, relevant, { exposeDefaultValues: true });
  // One message per variable: the type check when it failed ("PORT=abc" is not an integer, rather
  // than also "not greater than 65535"), otherwise the first rule broken.
  const problems = validateSync(vars, { skipMissingProperties: false }).map((e) => {
    const constraints = e.constraints ?? {};
    const rule = TYPE_RULES.find((r) => r in constraints) ?? Object.keys(constraints)[0];
    return `${e.property}: ${(constraints[rule] ?? 'is invalid').replace(`${e.property} `, '')}`;
  });
  const retryDelays = (vars.WEBHOOK_RETRY_DELAYS_MS ?? '0,5000,30000')
    .split(',')
    .map((s) => Number(s.trim()));
  const llmPricing = parsePricing(vars.LLM_PRICING_JSON, problems);
  const trustProxy = parseTrustProxy(vars.TRUST_PROXY, problems);
  const encryption = parseEncryptionKeys(
    vars.ENCRYPTION_KEY,
    vars.ENCRYPTION_KEY_PREVIOUS,
    problems,
  );
  const tracing = tracingConfig(vars, problems);
  const allowedOrigins = parseOrigins(vars.CONSOLE_ALLOWED_ORIGINS, problems);
  const extensionModules = (vars.EXTENSION_MODULES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: vars.PORT,
    databaseUrl: vars.DATABASE_URL,
    databaseConnectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS,
    adminToken: vars.ADMIN_TOKEN,
    rateLimit: { max: vars.RATE_LIMIT_MAX, windowMs: vars.RATE_LIMIT_WINDOW_MS },
    redisUrl: vars.REDIS_URL,
    trustProxy,
    apiKeyCacheSize: vars.API_KEY_CACHE_SIZE,
    idempotency: {
      ttlMs: vars.IDEMPOTENCY_KEY_TTL_MS,
      waitMs: vars.IDEMPOTENCY_WAIT_MS,
      claimLeaseMs: vars.IDEMPOTENCY_CLAIM_LEASE_MS,
      cleanupIntervalMs: vars.IDEMPOTENCY_CLEANUP_INTERVAL_MS,
    },
    executor: {
      enabled: vars.EXECUTOR_ENABLED,
      concurrency: vars.EXECUTOR_CONCURRENCY,
      pollIntervalMs: vars.EXECUTOR_POLL_INTERVAL_MS,
      leaseMs: vars.STEP_LEASE_MS,
      recordMaxFailures: vars.STEP_RECORD_MAX_FAILURES,
      resultMaxBytes: vars.STEP_RESULT_MAX_BYTES,
      stateMaxBytes: vars.RUN_STATE_MAX_BYTES,
      workspaceMaxSteps: vars.WORKSPACE_MAX_CONCURRENT_STEPS || undefined,
      workflowMaxDepth: vars.WORKFLOW_MAX_DEPTH,
    },
    scheduler: {
      enabled: vars.SCHEDULER_ENABLED,
      pollIntervalMs: vars.SCHEDULER_POLL_INTERVAL_MS,
      batchSize: vars.SCHEDULER_BATCH_SIZE,
    },
    expressions: {
      workers: vars.EXPRESSION_WORKERS,
      timeoutMs: vars.EXPRESSION_TIMEOUT_MS,
      memoryMb: vars.EXPRESSION_MEMORY_MB,
      maxResultBytes: vars.EXPRESSION_MAX_RESULT_BYTES,
    },
    openai: {
      apiKey: vars.OPENAI_API_KEY,
      baseUrl: (vars.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, ''),
    },
    anthropic: {
      apiKey: vars.ANTHROPIC_API_KEY,
      baseUrl: (vars.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com').replace(/\/+$/, ''),
    },
    llmPricing,
    budgets: { defaultMaxTokens: vars.LLM_BUDGET_DEFAULT_MAX_TOKENS },
    webhooks: {
      retryDelaysMs: retryDelays,
      timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: vars.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      endpointConcurrency: vars.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    encryption,
    logLevel: vars.LOG_LEVEL ?? 'info',
    metrics: {
      enabled: vars.METRICS_ENABLED,
      port: vars.METRICS_PORT,
      databaseRefreshMs: vars.METRICS_DATABASE_REFRESH_MS,
      workspaceLabel: vars.METRICS_WORKSPACE_LABEL,
      maxLabelValues: vars.METRICS_MAX_LABEL_VALUES,
    },
    tracing,
    extensionModules: extensionModules.length > 0 ? extensionModules : undefined,
    limits: {
      definitionsPerWorkspace: vars.MAX_DEFINITIONS_PER_WORKSPACE,
      schedulesPerWorkspace: vars.MAX_SCHEDULES_PER_WORKSPACE,
      definitionBytes: vars.MAX_DEFINITION_BYTES,
      runInputBytes: vars.MAX_RUN_INPUT_BYTES,
      signalPayloadBytes: vars.MAX_SIGNAL_PAYLOAD_BYTES,
      bufferedSignalsPerRun: vars.MAX_BUFFERED_SIGNALS_PER_RUN,
      approvalContentBytes: vars.MAX_APPROVAL_CONTENT_BYTES,
      pendingApprovalsPerWorkspace: vars.MAX_PENDING_APPROVALS_PER_WORKSPACE,
      approvalListMaxItems: vars.APPROVAL_LIST_MAX_ITEMS,
      approvalMaxTimeoutMs: vars.APPROVAL_MAX_TIMEOUT_MS,
      definitionCacheBytes: vars.EXECUTOR_DEFINITION_CACHE_BYTES,
    },
    eventStreams: {
      maxStreams: vars.SSE_MAX_STREAMS,
      maxPerWorkspace: vars.SSE_MAX_STREAMS_PER_WORKSPACE,
      heartbeatMs: vars.SSE_HEARTBEAT_MS,
      maxBufferedBytes: vars.SSE_MAX_BUFFERED_BYTES,
    },
    console: { sessionTtlMs: vars.CONSOLE_SESSION_TTL_MS, allowedOrigins },
    costs: { seriesMaxBuckets: vars.COST_SERIES_MAX_BUCKETS },
  };
}
