import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchDatabase, DatabaseServer } from '../lib/db';
import { query } from '../lib/db';

/** pgbench on PATH, else in a Debian/Ubuntu PostgreSQL install (/usr/lib/postgresql/<v>/bin). */
export function findPgbench(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pgbench'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim();
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const p = path.join(root, v, 'bin', 'pgbench');
    if (existsSync(p)) return p;
  }
  return undefined;
}

export interface PgbenchResult {
  tps: number;
  clients: number;
  seconds: number;
  latencyAvgMs: number;
  binary: string;
}

const SCRIPT = `INSERT INTO bench_steps (run_id, status) VALUES (:run, 'RUNNING') RETURNING id \\gset
UPDATE bench_steps SET status = 'COMPLETED', completed_at = now() WHERE id = :id;
`;

/**
 * The database's own ceiling for this machine: transactions of one INSERT and one UPDATE (of the row
 * just inserted), `clients` clients over 2 threads, prepared statements, for `seconds`.
 */
export async function pgbenchCeiling(
  server: DatabaseServer,
  db: BenchDatabase,
  binary: string,
  seconds: number,
  clients = 8,
): Promise<PgbenchResult> {
  await query(
    db.url,
    `CREATE TABLE bench_steps (id bigserial PRIMARY KEY, run_id int NOT NULL, status text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(), completed_at timestamptz)`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-'));
  const file = path.join(dir, 'step.sql');
  writeFileSync(file, `\\set run random(1, 1000000)\n${SCRIPT}`);
  try {
    const out = execFileSync(
      binary,
      [
        '-n',
        '-M',
        'prepared',
        '-c',
        String(clients),
        '-j',
        '2',
        '-T',
        String(seconds),
        '-f',
        file,
        '-h',
        server.host,
        '-p',
        String(server.port),
        '-U',
        server.user,
        db.name,
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, ...(server.password ? { PGPASSWORD: server.password } : {}) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const tps = /tps = ([\d.]+)/.exec(out);
    const lat = /latency average = ([\d.]+) ms/.exec(out);
    if (!tps) throw new Error(`unexpected pgbench output:\n${out}`);
    return {
      tps: Number(tps[1]),
      clients,
      seconds,
      latencyAvgMs: lat ? Number(lat[1]) : NaN,
      binary,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
