import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
};

const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

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
  RATE_LIMIT_WINDOW_MS = 60000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

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
  EXECUTOR_POLL_INTERVAL_MS = 500;

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  STEP_LEASE_MS = 30000;

  /** 0: no limit beyond fair sharing (a lone workspace may take every slot). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  WORKSPACE_MAX_CONCURRENT_STEPS = 0;

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

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*\d+\s*(,\s*\d+\s*)*$/, { message: 'must be a comma-separated list of integers' })
  WEBHOOK_RETRY_DELAYS_MS = '0,5000,30000';

  @Transform(toInt)
  @IsInt()
  @Min(1)
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
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';
}

export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** The validated, typed configuration handed to every module. */
export interface AppConfig {
  port: number;
  databaseUrl?: string;
  adminToken?: string;
  rateLimit: { max: number; windowMs: number };
  redisUrl?: string;
  executor: {
    enabled: boolean;
    concurrency: number;
    pollIntervalMs: number;
    leaseMs: number;
    /** Steps one workspace may run at once in this process; unset: no limit. */
    workspaceMaxSteps?: number;
  };
  openai: { apiKey?: string; baseUrl: string };
  anthropic: { apiKey?: string; baseUrl: string };
  llmPricing: Record<string, ModelPrice>;
  webhooks: {
    retryDelaysMs: number[];
    timeoutMs: number;
    allowPrivateNetworks: boolean;
    /** Attempts in flight to one webhook per process. */
    endpointConcurrency: number;
  };
  logLevel: string;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
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

/** The names of every variable of design §1, in the order of the README's table. */
export const CONFIG_VARIABLES = [
  'PORT',
  'DATABASE_URL',
  'ADMIN_TOKEN',
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_WINDOW_MS',
  'REDIS_URL',
  'EXECUTOR_ENABLED',
  'EXECUTOR_CONCURRENCY',
  'EXECUTOR_POLL_INTERVAL_MS',
  'STEP_LEASE_MS',
  'WORKSPACE_MAX_CONCURRENT_STEPS',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'LLM_PRICING_JSON',
  'WEBHOOK_RETRY_DELAYS_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_ENDPOINT_CONCURRENCY',
  'LOG_LEVEL',
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
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: vars.PORT,
    databaseUrl: vars.DATABASE_URL,
    adminToken: vars.ADMIN_TOKEN,
    rateLimit: { max: vars.RATE_LIMIT_MAX, windowMs: vars.RATE_LIMIT_WINDOW_MS },
    redisUrl: vars.REDIS_URL,
    executor: {
      enabled: vars.EXECUTOR_ENABLED,
      concurrency: vars.EXECUTOR_CONCURRENCY,
      pollIntervalMs: vars.EXECUTOR_POLL_INTERVAL_MS,
      leaseMs: vars.STEP_LEASE_MS,
      workspaceMaxSteps: vars.WORKSPACE_MAX_CONCURRENT_STEPS || undefined,
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
    webhooks: {
      retryDelaysMs: retryDelays,
      timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: vars.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      endpointConcurrency: vars.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    logLevel: vars.LOG_LEVEL ?? 'info',
  };
}
