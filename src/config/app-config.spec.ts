import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, ConfigError, defaultExpressionWorkers, loadConfig } from './app-config';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');
/** URL-safe base64 without padding is accepted too. */
const KEY_C = Buffer.alloc(32, 0xfb).toString('base64url');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected loadConfig to reject the environment');
}

describe('loadConfig', () => {
  it('applies the defaults of design §1 to an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      databaseUrl: undefined,
      databaseConnectTimeoutMs: 5000,
      adminToken: undefined,
      rateLimit: { max: 1000, windowMs: 60000 },
      redisUrl: undefined,
      trustProxy: false,
      apiKeyCacheSize: 10_000,
      idempotency: {
        ttlMs: 86_400_000,
        waitMs: 5000,
        claimLeaseMs: 60_000,
        cleanupIntervalMs: 60_000,
      },
      executor: {
        enabled: true,
        concurrency: 32,
        pollIntervalMs: 500,
        leaseMs: 30000,
        recordMaxFailures: 3,
        resultMaxBytes: 1_048_576,
        stateMaxBytes: 4_194_304,
        workflowMaxDepth: 5,
      },
      scheduler: { enabled: true, pollIntervalMs: 500, batchSize: 100 },
      expressions: {
        workers: defaultExpressionWorkers(),
        timeoutMs: 1000,
        memoryMb: 128,
        maxResultBytes: 1048576,
      },
      openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1' },
      anthropic: { apiKey: undefined, baseUrl: 'https://api.anthropic.com' },
      llmPricing: {},
      budgets: { defaultMaxTokens: 4096 },
      webhooks: {
        retryDelaysMs: [0, 5000, 30000],
        timeoutMs: 10000,
        allowPrivateNetworks: false,
        endpointConcurrency: 4,
      },
      encryption: { key: undefined, previousKeys: [] },
      logLevel: 'info',
      metrics: {
        enabled: true,
        port: undefined,
        databaseRefreshMs: 15000,
        workspaceLabel: false,
        maxLabelValues: 200,
      },
      tracing: undefined,
      limits: {
        definitionsPerWorkspace: 500,
        schedulesPerWorkspace: 1000,
        definitionBytes: 65536,
        runInputBytes: 262144,
        signalPayloadBytes: 65536,
        bufferedSignalsPerRun: 100,
        approvalContentBytes: 65536,
        pendingApprovalsPerWorkspace: 500,
        approvalListMaxItems: 500,
        approvalMaxTimeoutMs: 2592000000,
        definitionCacheBytes: 67108864,
      },
      eventStreams: {
        maxStreams: 1000,
        maxPerWorkspace: 100,
        heartbeatMs: 15000,
        maxBufferedBytes: 1048576,
      },
      console: { sessionTtlMs: 43_200_000, allowedOrigins: [] },
      costs: { seriesMaxBuckets: 1000 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u:p@db:5432/wf',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      ADMIN_TOKEN: 'a-long-admin-token',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_WINDOW_MS: '1000',
      REDIS_URL: 'redis://cache:6379',
      TRUST_PROXY: '2',
      IDEMPOTENCY_KEY_TTL_MS: '3600000',
      IDEMPOTENCY_WAIT_MS: '0',
      IDEMPOTENCY_CLAIM_LEASE_MS: '10000',
      IDEMPOTENCY_CLEANUP_INTERVAL_MS: '500',
      EXECUTOR_ENABLED: 'false',
      EXECUTOR_CONCURRENCY: '4',
      EXECUTOR_POLL_INTERVAL_MS: '100',
      STEP_LEASE_MS: '5000',
      STEP_RECORD_MAX_FAILURES: '5',
      STEP_RESULT_MAX_BYTES: '65536',
      RUN_STATE_MAX_BYTES: '131072',
      EXPRESSION_WORKERS: '3',
      EXPRESSION_TIMEOUT_MS: '250',
      EXPRESSION_MEMORY_MB: '64',
      EXPRESSION_MAX_RESULT_BYTES: '4096',
      WORKSPACE_MAX_CONCURRENT_STEPS: '3',
      SCHEDULER_ENABLED: 'false',
      SCHEDULER_POLL_INTERVAL_MS: '250',
      SCHEDULER_BATCH_SIZE: '50',
      WORKFLOW_MAX_DEPTH: '7',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://localhost:11434/v1/',
      ANTHROPIC_API_KEY: 'ak-test',
      ANTHROPIC_BASE_URL: 'https://proxy.example.com/',
      LLM_PRICING_JSON: '{"my-model": {"inputPerMillion": 1.5, "outputPerMillion": 2}}',
      LLM_BUDGET_DEFAULT_MAX_TOKENS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '0, 100,200',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ENCRYPTION_KEY: KEY_A,
      ENCRYPTION_KEY_PREVIOUS: `${KEY_B}, ${KEY_C}`,
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      LOG_LEVEL: 'debug',
      METRICS_ENABLED: 'false',
      METRICS_PORT: '9464',
      METRICS_DATABASE_REFRESH_MS: '5000',
      METRICS_WORKSPACE_LABEL: 'true',
      METRICS_MAX_LABEL_VALUES: '20',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-tenant = ops',
      OTEL_SERVICE_NAME: 'orchestrator-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      MAX_DEFINITIONS_PER_WORKSPACE: '10',
      MAX_SCHEDULES_PER_WORKSPACE: '7',
      MAX_DEFINITION_BYTES: '2048',
      MAX_RUN_INPUT_BYTES: '4096',
      MAX_SIGNAL_PAYLOAD_BYTES: '1024',
      MAX_BUFFERED_SIGNALS_PER_RUN: '3',
      MAX_APPROVAL_CONTENT_BYTES: '3000',
      MAX_PENDING_APPROVALS_PER_WORKSPACE: '7',
      APPROVAL_LIST_MAX_ITEMS: '50',
      APPROVAL_MAX_TIMEOUT_MS: '86400000',
      EXECUTOR_DEFINITION_CACHE_BYTES: '0',
      SSE_MAX_STREAMS: '50',
      SSE_MAX_STREAMS_PER_WORKSPACE: '5',
      SSE_HEARTBEAT_MS: '250',
      SSE_MAX_BUFFERED_BYTES: '65536',
      CONSOLE_SESSION_TTL_MS: '60000',
      CONSOLE_ALLOWED_ORIGINS: 'https://Console.example.com, http://localhost:5173',
      COST_SERIES_MAX_BUCKETS: '48',
      API_KEY_CACHE_SIZE: '0',
    });
    expect(config).toEqual({
      port: 8080,
      databaseUrl: 'postgres://u:p@db:5432/wf',
      databaseConnectTimeoutMs: 2000,
      adminToken: 'a-long-admin-token',
      rateLimit: { max: 0, windowMs: 1000 },
      redisUrl: 'redis://cache:6379',
      trustProxy: 2,
      apiKeyCacheSize: 0,
      idempotency: { ttlMs: 3_600_000, waitMs: 0, claimLeaseMs: 10_000, cleanupIntervalMs: 500 },
      executor: {
        enabled: false,
        concurrency: 4,
        pollIntervalMs: 100,
        leaseMs: 5000,
        recordMaxFailures: 5,
        resultMaxBytes: 65536,
        stateMaxBytes: 131072,
        workspaceMaxSteps: 3,
        workflowMaxDepth: 7,
      },
      scheduler: { enabled: false, pollIntervalMs: 250, batchSize: 50 },
      expressions: { workers: 3, timeoutMs: 250, memoryMb: 64, maxResultBytes: 4096 },
      openai: { apiKey: 'sk-test', baseUrl: 'http://localhost:11434/v1' },
      anthropic: { apiKey: 'ak-test', baseUrl: 'https://proxy.example.com' },
      llmPricing: { 'my-model': { inputPerMillion: 1.5, outputPerMillion: 2 } },
      budgets: { defaultMaxTokens: 1000 },
      webhooks: {
        retryDelaysMs: [0, 100, 200],
        timeoutMs: 2000,
        allowPrivateNetworks: true,
        endpointConcurrency: 2,
      },
      encryption: {
        key: Buffer.from(KEY_A, 'base64'),
        previousKeys: [Buffer.from(KEY_B, 'base64'), Buffer.from(KEY_C, 'base64url')],
      },
      logLevel: 'debug',
      metrics: {
        enabled: false,
        port: 9464,
        databaseRefreshMs: 5000,
        workspaceLabel: true,
        maxLabelValues: 20,
      },
      tracing: {
        url: 'https://traces.example.com/otlp/v1/traces',
        protocol: 'http/json',
        headers: { authorization: 'Bearer abc', 'x-tenant': 'ops' },
        serviceName: 'orchestrator-eu',
        sampler: 'parentbased_traceidratio',
        samplerArg: 0.1,
      },
      limits: {
        definitionsPerWorkspace: 10,
        schedulesPerWorkspace: 7,
        definitionBytes: 2048,
        runInputBytes: 4096,
        signalPayloadBytes: 1024,
        bufferedSignalsPerRun: 3,
        approvalContentBytes: 3000,
        pendingApprovalsPerWorkspace: 7,
        approvalListMaxItems: 50,
        approvalMaxTimeoutMs: 86400000,
        definitionCacheBytes: 0,
      },
      eventStreams: {
        maxStreams: 50,
        maxPerWorkspace: 5,
        heartbeatMs: 250,
        maxBufferedBytes: 65536,
      },
      console: {
        sessionTtlMs: 60000,
        allowedOrigins: ['https://console.example.com', 'http://localhost:5173'],
      },
      costs: { seriesMaxBuckets: 48 },
    });
  });

  it('treats an empty value as unset, so the default applies', () => {
    const env = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, '']));
    expect(loadConfig(env)).toEqual(loadConfig({}));
    expect(loadConfig({ PORT: '  ', ADMIN_TOKEN: '' })).toMatchObject({
      port: 3000,
      adminToken: undefined,
    });
  });

  it('ignores variables that are not its own', () => {
    expect(loadConfig({ HOME: '/root', PORT_NUMBER: 'x' }).port).toBe(3000);
  });

  it('reads WORKSPACE_MAX_CONCURRENT_STEPS=0 as no limit', () => {
    expect(loadConfig({ WORKSPACE_MAX_CONCURRENT_STEPS: '0' }).executor.workspaceMaxSteps).toBe(
      undefined,
    );
    expect(loadConfig({ WORKSPACE_MAX_CONCURRENT_STEPS: '1' }).executor.workspaceMaxSteps).toBe(1);
  });

  it('reads EXTENSION_MODULES as a list, trimming entries and dropping empty ones', () => {
    expect(
      loadConfig({ EXTENSION_MODULES: ' @acme/greetings , ./extensions/billing,,' })
        .extensionModules,
    ).toEqual(['@acme/greetings', './extensions/billing']);
    expect(loadConfig({ EXTENSION_MODULES: ' , ' }).extensionModules).toBe(undefined);
  });

  it('turns tracing on with an OTLP endpoint, with the standard defaults', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'workflow-orchestrator',
      sampler: 'parentbased_always_on',
      samplerArg: 1,
    });
    // The signal-specific endpoint is used as it is.
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom' }).tracing
        ?.url,
    ).toBe('http://collector:4318/custom');
    // The other variables alone do not turn it on.
    expect(
      loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing,
    ).toBeUndefined();
  });

  it('refuses tracing settings the SDK could not use, naming each', () => {
    const problems = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
    });
    expect(problems.sort()).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
      'OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs separated by commas (values URL-encoded)',
      'OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf or http/json (grpc is not supported)',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http:// or https:// URL',
      'OTEL_TRACES_SAMPLER: must be one of always_on, always_off, traceidratio, ' +
        'parentbased_always_on, parentbased_always_off, parentbased_traceidratio',
      'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1',
    ]);
    expect(problemsOf({ OTEL_TRACES_SAMPLER_ARG: 'ten percent' })).toEqual([
      'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1',
    ]);
  });

  it('accepts 1/0 and any case for booleans', () => {
    expect(loadConfig({ EXECUTOR_ENABLED: '0' }).executor.enabled).toBe(false);
    expect(loadConfig({ EXECUTOR_ENABLED: 'TRUE' }).executor.enabled).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' }).webhooks.allowPrivateNetworks).toBe(
      true,
    );
  });

  it('reads TRUST_PROXY as off, a hop count, or the trusted addresses and CIDRs', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(
      loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 127.0.0.1 ,fd00::/8,::1, loopback' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8', '::1', 'loopback']);
  });

  it('accepts postgresql:// and rediss:// URLs', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://db/wf',
      REDIS_URL: 'rediss://cache:6380',
    });
    expect(config.databaseUrl).toBe('postgresql://db/wf');
    expect(config.redisUrl).toBe('rediss://cache:6380');
  });

  it.each<[string, string]>([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://db/wf'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '99'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '60001'],
    ['DATABASE_CONNECT_TIMEOUT_MS', 'soon'],
    ['ADMIN_TOKEN', 'short'],
    ['RATE_LIMIT_MAX', '-1'],
    ['RATE_LIMIT_MAX', 'many'],
    ['RATE_LIMIT_WINDOW_MS', '0'],
    ['REDIS_URL', 'http://cache:6379'],
    ['EXECUTOR_ENABLED', 'maybe'],
    ['EXECUTOR_CONCURRENCY', '0'],
    ['EXECUTOR_CONCURRENCY', '1001'],
    ['EXECUTOR_POLL_INTERVAL_MS', '5'],
    ['STEP_LEASE_MS', '999'],
    // A timer cannot wait longer than 2^31 - 1 ms: it would fire at once.
    ['RATE_LIMIT_WINDOW_MS', '2147483648'],
    ['EXECUTOR_POLL_INTERVAL_MS', '2147483648'],
    ['STEP_LEASE_MS', '31536000000'],
    ['WEBHOOK_TIMEOUT_MS', '2147483648'],
    ['STEP_RECORD_MAX_FAILURES', '0'],
    ['STEP_RECORD_MAX_FAILURES', '101'],
    ['STEP_RESULT_MAX_BYTES', '1023'],
    ['STEP_RESULT_MAX_BYTES', '1MB'],
    ['RUN_STATE_MAX_BYTES', '134217729'],
    ['EXPRESSION_WORKERS', '0'],
    ['EXPRESSION_WORKERS', '65'],
    ['EXPRESSION_TIMEOUT_MS', '5'],
    ['EXPRESSION_TIMEOUT_MS', '1s'],
    ['EXPRESSION_MEMORY_MB', '8'],
    ['EXPRESSION_MAX_RESULT_BYTES', '100'],
    ['WORKSPACE_MAX_CONCURRENT_STEPS', '-1'],
    ['WORKSPACE_MAX_CONCURRENT_STEPS', '1001'],
    ['SCHEDULER_ENABLED', 'maybe'],
    ['SCHEDULER_POLL_INTERVAL_MS', '5'],
    ['SCHEDULER_BATCH_SIZE', '0'],
    ['SCHEDULER_BATCH_SIZE', '1001'],
    ['MAX_SCHEDULES_PER_WORKSPACE', '0'],
    ['WORKSPACE_MAX_CONCURRENT_STEPS', 'half'],
    ['WORKFLOW_MAX_DEPTH', '0'],
    ['WORKFLOW_MAX_DEPTH', '51'],
    ['OPENAI_BASE_URL', 'ftp://models'],
    ['ANTHROPIC_BASE_URL', 'api.anthropic.com'],
    ['LLM_PRICING_JSON', '{not json'],
    ['LLM_PRICING_JSON', '[1, 2]'],
    ['LLM_PRICING_JSON', '{"m": {"inputPerMillion": -1, "outputPerMillion": 1}}'],
    ['LLM_PRICING_JSON', '{"m": {"inputPerMillion": 1}}'],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,5s,30s'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes please'],
    ['ENCRYPTION_KEY', 'not base64 at all!'],
    ['ENCRYPTION_KEY', Buffer.alloc(16, 1).toString('base64')],
    ['ENCRYPTION_KEY', Buffer.alloc(33, 1).toString('base64')],
    ['ENCRYPTION_KEY', 'a'.repeat(64)],
    ['ENCRYPTION_KEY_PREVIOUS', `${KEY_A},short`],
    ['ENCRYPTION_KEY_PREVIOUS', Buffer.alloc(31, 1).toString('base64')],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '0'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '1001'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '2.5'],
    ['LOG_LEVEL', 'verbose'],
    // Trusting every hop would believe whatever X-Forwarded-For a client writes.
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '101'],
    ['TRUST_PROXY', '-1'],
    ['TRUST_PROXY', 'proxy.internal'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/8/1'],
    ['TRUST_PROXY', '10.0.0.0/8,300.1.1.1'],
    ['TRUST_PROXY', ','],
  ])('rejects %s=%j with a message naming the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('says what is wrong in one message per variable', () => {
    expect(problemsOf({ PORT: 'abc' })).toEqual(['PORT: must be an integer number']);
    expect(problemsOf({ PORT: '70000' })).toEqual(['PORT: must not be greater than 65535']);
    expect(problemsOf({ DATABASE_URL: 'mysql://db' })).toEqual([
      'DATABASE_URL: must be a postgres:// connection string',
    ]);
  });

  it('says how a key must look without echoing the bad value', () => {
    const secretish = `${KEY_A.slice(0, 40)}!!`;
    expect(problemsOf({ ENCRYPTION_KEY: secretish })).toEqual([
      'ENCRYPTION_KEY: must be the base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)',
    ]);
    expect(problemsOf({ ENCRYPTION_KEY_PREVIOUS: `${KEY_A},${secretish},${KEY_B},x` })).toEqual([
      'ENCRYPTION_KEY_PREVIOUS: entry 2, 4 of the comma-separated list must be the base64 of ' +
        'exactly 32 bytes (e.g. `openssl rand -base64 32`)',
    ]);
  });

  it('names the TRUST_PROXY entries that are not addresses', () => {
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/8, proxy.internal, 1.2.3.4/40' })).toEqual([
      'TRUST_PROXY: must be false, a hop count (1-100), or comma-separated addresses or CIDRs of ' +
        'the trusted proxies (not an address or CIDR: proxy.internal, 1.2.3.4/40)',
    ]);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'nope' });
    const named = problems.map((p) => p.split(':')[0]);
    expect(new Set(named)).toEqual(new Set(['PORT', 'LOG_LEVEL', 'REDIS_URL']));
  });

  it('refuses storage limits out of their range, naming each', () => {
    const problems = problemsOf({
      MAX_DEFINITIONS_PER_WORKSPACE: '0',
      MAX_DEFINITION_BYTES: '2000000',
      MAX_RUN_INPUT_BYTES: '12',
      MAX_SIGNAL_PAYLOAD_BYTES: 'lots',
      MAX_BUFFERED_SIGNALS_PER_RUN: '10001',
      MAX_PENDING_APPROVALS_PER_WORKSPACE: '-1',
      APPROVAL_LIST_MAX_ITEMS: '10001',
      APPROVAL_MAX_TIMEOUT_MS: '31536000001',
      EXECUTOR_DEFINITION_CACHE_BYTES: '1.5',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
      [
        'APPROVAL_LIST_MAX_ITEMS',
        'APPROVAL_MAX_TIMEOUT_MS',
        'EXECUTOR_DEFINITION_CACHE_BYTES',
        'MAX_DEFINITIONS_PER_WORKSPACE',
        'MAX_DEFINITION_BYTES',
        'MAX_PENDING_APPROVALS_PER_WORKSPACE',
        'MAX_RUN_INPUT_BYTES',
        'MAX_SIGNAL_PAYLOAD_BYTES',
        'MAX_BUFFERED_SIGNALS_PER_RUN',
      ].sort(),
    );
  });

  it('refuses idempotency settings out of their range, naming each', () => {
    const problems = problemsOf({
      IDEMPOTENCY_KEY_TTL_MS: '999',
      IDEMPOTENCY_WAIT_MS: '60001',
      IDEMPOTENCY_CLAIM_LEASE_MS: 'soon',
      IDEMPOTENCY_CLEANUP_INTERVAL_MS: '99',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'IDEMPOTENCY_CLAIM_LEASE_MS',
      'IDEMPOTENCY_CLEANUP_INTERVAL_MS',
      'IDEMPOTENCY_KEY_TTL_MS',
      'IDEMPOTENCY_WAIT_MS',
    ]);
    expect(problemsOf({ IDEMPOTENCY_KEY_TTL_MS: String(31 * 24 * 3600 * 1000) })).toEqual([
      'IDEMPOTENCY_KEY_TTL_MS: must not be greater than 2592000000',
    ]);
  });

  it('refuses event stream settings out of their range, naming each', () => {
    const problems = problemsOf({
      SSE_MAX_STREAMS: '0',
      SSE_MAX_STREAMS_PER_WORKSPACE: 'many',
      SSE_HEARTBEAT_MS: '50',
      SSE_MAX_BUFFERED_BYTES: '1024',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'SSE_HEARTBEAT_MS',
      'SSE_MAX_BUFFERED_BYTES',
      'SSE_MAX_STREAMS',
      'SSE_MAX_STREAMS_PER_WORKSPACE',
    ]);
  });

  it('refuses console and cost settings out of their range, naming each', () => {
    const problems = problemsOf({
      CONSOLE_SESSION_TTL_MS: '59999',
      CONSOLE_ALLOWED_ORIGINS: 'https://ok.example.com, https://bad.example.com/path',
      COST_SERIES_MAX_BUCKETS: '0',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'CONSOLE_ALLOWED_ORIGINS',
      'CONSOLE_SESSION_TTL_MS',
      'COST_SERIES_MAX_BUCKETS',
    ]);
    expect(problems.find((p) => p.startsWith('CONSOLE_ALLOWED_ORIGINS'))).toContain(
      'https://bad.example.com/path',
    );
    expect(problemsOf({ CONSOLE_SESSION_TTL_MS: String(30 * 24 * 3600 * 1000 + 1) })).toEqual([
      expect.stringMatching(/^CONSOLE_SESSION_TTL_MS: /),
    ]);
  });

  it('puts every problem in the error message', () => {
    expect(() => loadConfig({ PORT: 'abc', RATE_LIMIT_MAX: '-5' })).toThrow(
      /invalid configuration:[\s\S]*PORT: [\s\S]*RATE_LIMIT_MAX: /,
    );
  });

  it('.env.example lists every variable once, with the defaults', () => {
    const text = readFileSync(path.resolve(__dirname, '..', '..', '.env.example'), 'utf8');
    const entries = text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
    expect(entries.map(([name]) => name)).toEqual([...CONFIG_VARIABLES]);
    expect(loadConfig(Object.fromEntries(entries))).toEqual(loadConfig({}));
  });
});
