import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../src/config/app-config';
import { GiveUp, waitFor } from './wait';

const MAIN = path.resolve(__dirname, '..', '..', 'dist', 'main.js');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process has written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code and signal; fails after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGKILL if the process is still running (cleanup after a failed test). */
  kill(): void;
}

/**
 * Runs the built service (`node dist/main.js`) the way an operator would. The environment is the test
 * runner's minus every configuration variable of the service, plus `env`, so that nothing from the CI
 * environment (REDIS_URL, a DATABASE_URL) leaks into the process under test.
 */
export function startService(options: {
  env: Record<string, string>;
  cwd?: string;
  port?: number;
  /** Another copy of the built service's entry point (default: this checkout's dist/main.js). */
  main?: string;
  /** Run as this user and group instead of the test runner's (needs root). */
  user?: { uid: number; gid: number };
}): ServiceProcess {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete base[name];
  const env = { ...base, ...options.env };
  const child = spawn(process.execPath, [options.main ?? MAIN], {
    cwd: options.cwd ?? process.cwd(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: options.user?.uid,
    gid: options.user?.gid,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    baseUrl: `http://127.0.0.1:${env.PORT ?? '3000'}`,
    stdout: () => out,
    stderr: () => err,
    exited: (timeoutMs = 30_000) =>
      Promise.race([
        exit,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`process still running after ${timeoutMs} ms\n${out}\n${err}`)),
            timeoutMs,
          ).unref(),
        ),
      ]),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls `GET /ready` until it answers 200, failing with the process output after the deadline. */
export async function waitUntilReady(service: ServiceProcess, timeoutMs: number): Promise<void> {
  await waitFor(
    `${service.baseUrl}/ready to answer 200`,
    async () => {
      if (service.child.exitCode !== null) {
        throw new GiveUp(
          `service exited with ${service.child.exitCode}\n${service.stdout()}\n${service.stderr()}`,
        );
      }
      const res = await fetch(`${service.baseUrl}/ready`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/**
 * A service process (API and executor) on a free port against `databaseUrl`, ready to serve, with a
 * short lease and poll so that crash tests stay short; `env` adds or overrides variables. Pushed onto
 * `started` so that the suite can stop it.
 */
export async function startExecutorProcess(
  databaseUrl: string,
  started: ServiceProcess[],
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const service = startService({
    env: {
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      STEP_LEASE_MS: '1500',
      EXECUTOR_POLL_INTERVAL_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...env,
    },
  });
  started.push(service);
  await waitUntilReady(service, 30_000);
  return service;
}

/** The JSON log lines the process has written to stdout (pino). */
export function logLines(service: ServiceProcess): Array<Record<string, unknown>> {
  return service
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
}
