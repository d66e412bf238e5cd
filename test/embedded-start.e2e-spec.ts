import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './support/wait';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';

/** The postmaster's pid, from the first line of its lock file. */
function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('starting the service (node dist/main.js)', () => {
  let dir: string;
  let dataDir: string;
  const started: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wf-embedded-start-'));
    // PostgreSQL runs as the `postgres` user when the tests run as root; it must reach the data directory.
    await chmod(dir, 0o755);
    dataDir = path.join(dir, '.data', 'postgres');
  });

  afterAll(async () => {
    for (const service of started) service.kill();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const port = await freePort();
    const service = startService({ cwd: dir, env: { PORT: String(port), ...env } });
    started.push(service);
    return service;
  }

  it('starts an embedded PostgreSQL under ./.data/postgres when DATABASE_URL is unset, answers /ready, and on SIGTERM stops it and exits 0', async () => {
    const service = await start();
    await waitUntilReady(service, 120_000);

    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    const pid = postmasterPid(dataDir);
    expect(isRunning(pid)).toBe(true);

    const ready = await fetch(`${service.baseUrl}/ready`);
    expect(await ready.json()).toEqual({
      success: true,
      data: { status: 'ready', database: 'up' },
    });
    // The schema is migrated: the API works end to end.
    const created = await fetch(`${service.baseUrl}/v1/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Embedded', slug: 'embedded-start' }),
    });
    expect(created.status).toBe(201);

    service.child.kill('SIGTERM');
    await expect(service.exited(30_000)).resolves.toEqual({ code: 0, signal: null });
    expect(isRunning(pid)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(false);
  }, 180_000);

  it('keeps its data in ./.data/postgres across restarts', async () => {
    const service = await start();
    await waitUntilReady(service, 60_000);

    const again = await fetch(`${service.baseUrl}/v1/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Embedded', slug: 'embedded-start' }),
    });
    expect(again.status).toBe(409);

    service.child.kill('SIGTERM');
    await expect(service.exited(30_000)).resolves.toEqual({ code: 0, signal: null });
  }, 120_000);

  it('on SIGTERM finishes a request in flight before it stops the embedded PostgreSQL', async () => {
    const service = await start();
    await waitUntilReady(service, 60_000);
    const pid = postmasterPid(dataDir);

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ name: 'In flight', slug: 'in-flight' });
    const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      'POST /v1/workspaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n` +
        body.slice(0, 5),
    );
    // Node answers `100 Continue` once the request is in the server's hands.
    await waitFor('the server to accept the request', () =>
      answer.includes('100 Continue') ? true : undefined,
    );

    service.child.kill('SIGTERM');
    await waitFor('the service to log the signal', () =>
      service.stdout().includes('SIGTERM received') ? true : undefined,
    );
    // write, not end: a client that half-closes its side has abandoned the request.
    socket.write(body.slice(5));
    await closed;

    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    await expect(service.exited(30_000)).resolves.toEqual({ code: 0, signal: null });
    expect(isRunning(pid)).toBe(false);
  }, 120_000);

  it('exits non-zero with a message naming PORT when PORT is not a number', async () => {
    const service = startService({ cwd: dir, env: { PORT: 'abc' } });
    started.push(service);
    const { code } = await service.exited(20_000);
    expect(code).not.toBe(0);
    expect(service.stderr()).toMatch(/PORT/);
  });

  it('names every bad variable at once', async () => {
    const service = startService({
      cwd: dir,
      env: {
        PORT: '70000',
        RATE_LIMIT_MAX: '-1',
        EXECUTOR_ENABLED: 'maybe',
        DATABASE_URL: 'mysql://nope',
      },
    });
    started.push(service);
    const { code } = await service.exited(20_000);
    expect(code).not.toBe(0);
    const stderr = service.stderr();
    for (const name of ['PORT', 'RATE_LIMIT_MAX', 'EXECUTOR_ENABLED', 'DATABASE_URL']) {
      expect(stderr).toContain(name);
    }
  });
});
