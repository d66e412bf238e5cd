import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort, log, sleep } from './util';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface HttpAnswer<T = unknown> {
  status: number;
  body: { success: boolean; data: T; meta?: Record<string, number>; error?: unknown };
}

/** One JSON request over a keep-alive connection (lighter on the client than fetch). */
export function request<T = unknown>(
  baseUrl: string,
  method: string,
  urlPath: string,
  body?: unknown,
  apiKey?: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer<T>> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const url = new URL(urlPath, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        method,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': payload.length }
            : {}),
          ...(apiKey ? { 'x-api-key': apiKey } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(text) as HttpAnswer<T>['body'],
            });
          } catch {
            reject(new Error(`${method} ${urlPath}: ${res.statusCode} ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Like `request`, but throws unless the status is 2xx; returns `data`. */
export async function call<T = unknown>(
  baseUrl: string,
  method: string,
  urlPath: string,
  body?: unknown,
  apiKey?: string,
  headers?: Record<string, string>,
): Promise<T> {
  const res = await request<T>(baseUrl, method, urlPath, body, apiKey, headers);
  if (res.status < 200 || res.status > 299) {
    throw new Error(`${method} ${urlPath} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body.data;
}

/**
 * Error-level lines (pino level >= 50) that any service process logged, with the process's start time
 * and port: kept in the results file so that an anomaly (a step recovered only after its lease) can be
 * traced to its cause.
 */
export const serviceErrors: string[] = [];

export interface Service {
  baseUrl: string;
  pid: number;
  /** The last lines the service logged (warnings and errors). */
  logs(): string;
  /** Resident set size of the service process, in bytes (Linux /proc). */
  rss(): number;
  stop(): Promise<void>;
}

/**
 * Starts the built service (`node dist/main.js`) in production mode as its own process against
 * `databaseUrl`, and waits until /ready answers 200.
 */
export async function startService(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.resolve('dist/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      RATE_LIMIT_MAX: '0',
      LOG_LEVEL: 'warn',
      EXECUTOR_ENABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The service logs JSON (pino) on stdout at LOG_LEVEL=warn: kept, with stderr, for error reports.
  let stderr = '';
  let partial = '';
  const keep = (c: Buffer) => {
    const text = c.toString();
    stderr = (stderr + text).slice(-8000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const level = /"level":(\d+)/.exec(line);
      if ((level && Number(level[1]) >= 50) || (!level && /error/i.test(line))) {
        if (serviceErrors.length < 200) serviceErrors.push(`[port ${port}] ${line.slice(0, 2000)}`);
      }
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the service exited during start-up:\n${stderr}`);
    try {
      const res = await request(baseUrl, 'GET', '/ready');
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become ready within 60 s:\n${stderr}`);
    }
    await sleep(100);
  }
  return {
    baseUrl,
    pid: child.pid!,
    logs: () => stderr,
    rss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status);
      return kb ? Number(kb[1]) * 1024 : NaN;
    },
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(timer);
      if (stderr.trim() && process.env.BENCH_VERBOSE) log(`service stderr:\n${stderr}`);
    },
  };
}

/** POST /v1/workspaces then POST /v1/api-keys without a key (allowed for a workspace with no key). */
export async function bootstrapWorkspace(
  baseUrl: string,
  slug: string,
): Promise<{ workspaceId: string; apiKey: string }> {
  const ws = await call<{ id: string }>(baseUrl, 'POST', '/v1/workspaces', { name: slug, slug });
  const key = await call<{ key: string }>(baseUrl, 'POST', '/v1/api-keys', {
    name: 'bench',
    workspaceId: ws.id,
  });
  return { workspaceId: ws.id, apiKey: key.key };
}

export const THREE_NOOP_STEPS = [
  { type: 'task', name: 'one', handler: 'noop' },
  { type: 'task', name: 'two', handler: 'noop' },
  { type: 'task', name: 'three', handler: 'noop' },
];

export async function createDefinition(
  baseUrl: string,
  apiKey: string,
  name: string,
  steps: unknown[],
): Promise<string> {
  const def = await call<{ id: string }>(
    baseUrl,
    'POST',
    '/v1/workflow-definitions',
    { name, version: '1', steps },
    apiKey,
  );
  return def.id;
}
