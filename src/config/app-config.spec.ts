import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from './app-config';

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
      adminToken: undefined,
      rateLimit: { max: 1000, windowMs: 60000 },
      redisUrl: undefined,
      executor: { enabled: true, concurrency: 32, pollIntervalMs: 500, leaseMs: 30000 },
      openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1' },
      anthropic: { apiKey: undefined, baseUrl: 'https://api.anthropic.com' },
      llmPricing: {},
      webhooks: {
        retryDelaysMs: [0, 5000, 30000],
        timeoutMs: 10000,
        allowPrivateNetworks: false,
        endpointConcurrency: 4,
      },
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u:p@db:5432/wf',
      ADMIN_TOKEN: 'a-long-admin-token',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_WINDOW_MS: '1000',
      REDIS_URL: 'redis://cache:6379',
      EXECUTOR_ENABLED: 'false',
      EXECUTOR_CONCURRENCY: '4',
      EXECUTOR_POLL_INTERVAL_MS: '100',
      STEP_LEASE_MS: '5000',
      WORKSPACE_MAX_CONCURRENT_STEPS: '3',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://localhost:11434/v1/',
      ANTHROPIC_API_KEY: 'ak-test',
      ANTHROPIC_BASE_URL: 'https://proxy.example.com/',
      LLM_PRICING_JSON: '{"my-model": {"inputPerMillion": 1.5, "outputPerMillion": 2}}',
      WEBHOOK_RETRY_DELAYS_MS: '0, 100,200',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      port: 8080,
      databaseUrl: 'postgres://u:p@db:5432/wf',
      adminToken: 'a-long-admin-token',
      rateLimit: { max: 0, windowMs: 1000 },
      redisUrl: 'redis://cache:6379',
      executor: {
        enabled: false,
        concurrency: 4,
        pollIntervalMs: 100,
        leaseMs: 5000,
        workspaceMaxSteps: 3,
      },
      openai: { apiKey: 'sk-test', baseUrl: 'http://localhost:11434/v1' },
      anthropic: { apiKey: 'ak-test', baseUrl: 'https://proxy.example.com' },
      llmPricing: { 'my-model': { inputPerMillion: 1.5, outputPerMillion: 2 } },
      webhooks: {
        retryDelaysMs: [0, 100, 200],
        timeoutMs: 2000,
        allowPrivateNetworks: true,
        endpointConcurrency: 2,
      },
      logLevel: 'debug',
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

  it('accepts 1/0 and any case for booleans', () => {
    expect(loadConfig({ EXECUTOR_ENABLED: '0' }).executor.enabled).toBe(false);
    expect(loadConfig({ EXECUTOR_ENABLED: 'TRUE' }).executor.enabled).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' }).webhooks.allowPrivateNetworks).toBe(
      true,
    );
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
    ['WORKSPACE_MAX_CONCURRENT_STEPS', '-1'],
    ['WORKSPACE_MAX_CONCURRENT_STEPS', '1001'],
    ['WORKSPACE_MAX_CONCURRENT_STEPS', 'half'],
    ['OPENAI_BASE_URL', 'ftp://models'],
    ['ANTHROPIC_BASE_URL', 'api.anthropic.com'],
    ['LLM_PRICING_JSON', '{not json'],
    ['LLM_PRICING_JSON', '[1, 2]'],
    ['LLM_PRICING_JSON', '{"m": {"inputPerMillion": -1, "outputPerMillion": 1}}'],
    ['LLM_PRICING_JSON', '{"m": {"inputPerMillion": 1}}'],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,5s,30s'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes please'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '0'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '1001'],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', '2.5'],
    ['LOG_LEVEL', 'verbose'],
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

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'nope' });
    const named = problems.map((p) => p.split(':')[0]);
    expect(new Set(named)).toEqual(new Set(['PORT', 'LOG_LEVEL', 'REDIS_URL']));
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
