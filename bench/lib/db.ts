import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { cpuMs, log } from './util';

/**
 * Where the benchmark's databases live: BENCH_DATABASE_URL, else the machine's PostgreSQL at
 * 127.0.0.1:5432 (user postgres, trust) when it answers, else an embedded PostgreSQL. Every scenario
 * and every peer gets a fresh database on that server, dropped afterwards, so nobody sees anyone
 * else's rows.
 */
export interface DatabaseServer {
  kind: 'BENCH_DATABASE_URL' | 'local' | 'embedded';
  /** Connection string of the server's maintenance database (used to create and drop databases). */
  adminUrl: string;
  version: string;
  /** pgbench connection parameters when pgbench can reach the server. */
  host: string;
  port: number;
  user: string;
  password?: string;
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function query<T = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

function describe(url: string, kind: DatabaseServer['kind'], stop: () => Promise<void>) {
  const u = new URL(url);
  return async (): Promise<DatabaseServer> => {
    const [{ server_version }] = await query<{ server_version: string }>(
      url,
      'SHOW server_version',
    );
    return {
      kind,
      adminUrl: url,
      version: server_version,
      host: u.hostname,
      port: Number(u.port || 5432),
      user: decodeURIComponent(u.username || 'postgres'),
      password: u.password ? decodeURIComponent(u.password) : undefined,
      stop,
    };
  };
}

export async function findDatabaseServer(): Promise<DatabaseServer> {
  const none = async (): Promise<void> => undefined;
  const env = process.env.BENCH_DATABASE_URL;
  if (env) {
    if (!(await answers(env))) throw new Error('BENCH_DATABASE_URL does not answer');
    return describe(env, 'BENCH_DATABASE_URL', none)();
  }
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await answers(local)) return describe(local, 'local', none)();
  log(
    'no PostgreSQL at 127.0.0.1:5432: starting an embedded PostgreSQL under .data/bench-postgres',
  );
  const modulePath = path.resolve('dist/database/embedded-postgres.js');
  if (!existsSync(modulePath)) throw new Error(`${modulePath} is missing: build the service first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(modulePath) as {
    startEmbeddedPostgres(dir: string): Promise<{ url: string; stop(): Promise<void> }>;
  };
  const embedded = await mod.startEmbeddedPostgres('.data/bench-postgres');
  const u = new URL(embedded.url);
  u.pathname = '/postgres';
  return describe(u.toString(), 'embedded', () => embedded.stop())();
}

/** A fresh, empty database on the server; `drop()` removes it (closing any connection left on it). */
export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const created: BenchDatabase[] = [];

export async function createDatabase(
  server: DatabaseServer,
  label: string,
): Promise<BenchDatabase> {
  const name = `bench_${label.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(3).toString('hex')}`;
  await query(server.adminUrl, `CREATE DATABASE ${name}`);
  const u = new URL(server.adminUrl);
  u.pathname = `/${name}`;
  const db: BenchDatabase = {
    name,
    url: u.toString(),
    drop: async () => {
      const i = created.indexOf(db);
      if (i >= 0) created.splice(i, 1);
      await query(server.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
  created.push(db);
  return db;
}

/** Drops every database this process created and has not dropped yet (on failure or interrupt). */
export async function dropAll(): Promise<void> {
  for (const db of [...created].reverse()) await db.drop().catch(() => undefined);
}

/**
 * The server's WAL insert position in bytes (cluster-wide: nothing else writes during a bench, so the
 * difference of two readings is what the workload between them wrote).
 */
export async function walPosition(db: Client): Promise<number> {
  const { rows } = await db.query<{ at: string }>(
    `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS at`,
  );
  return Number(rows[0].at);
}

/**
 * CPU time (ms) each backend of `db`'s database has used so far, by pid, `db`'s own excepted; with
 * backendCpuSince, what PostgreSQL spent on a measurement.
 */
export async function backendCpu(db: Client): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/** The CPU time (ms) the database's backends used since `before` (backendCpu); new ones count whole. */
export async function backendCpuSince(db: Client, before: Map<number, number>): Promise<number> {
  let ms = 0;
  for (const [pid, now] of await backendCpu(db)) ms += now - (before.get(pid) ?? 0);
  return ms;
}
