import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { withDatabase } from './support/pg-url';

const ROOT = path.resolve(__dirname, '..');
const MIGRATIONS = readdirSync(path.join(ROOT, 'dist', 'migrations')).filter((f) =>
  f.endsWith('.js'),
);

/** An empty database (no template), named so that the global teardown drops it. */
async function emptyDatabase(): Promise<string> {
  const serverUrl = process.env.WF_TEST_SERVER_URL!;
  const name = `wf_t_${process.env.WF_TEST_RUN_ID}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/** `npm run migration:run` without the build: the compiled runner on DATABASE_URL. */
function migrate(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/database/migrate.js'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

async function appliedMigrations(databaseUrl: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'SELECT name FROM schema_migrations ORDER BY id',
    );
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('apply every migration once to an empty database, and a second run finds nothing to do', async () => {
    const url = await emptyDatabase();
    const first = await migrate(url);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/^applied: /);
    expect(await appliedMigrations(url)).toHaveLength(MIGRATIONS.length);

    const second = await migrate(url);
    expect(second).toEqual({ code: 0, output: 'no pending migrations\n' });
  });

  it('run once when three replicas start at the same time: the advisory lock makes the others wait', async () => {
    const url = await emptyDatabase();
    const runs = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    for (const run of runs) expect(run.code).toBe(0);
    expect(runs.filter((r) => r.output.startsWith('applied: '))).toHaveLength(1);
    expect(runs.filter((r) => r.output === 'no pending migrations\n')).toHaveLength(2);
    expect(await appliedMigrations(url)).toHaveLength(MIGRATIONS.length);
  });

  it('refuse to run without DATABASE_URL', async () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['dist/database/migrate.js'], { cwd: ROOT, env });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('DATABASE_URL');
  });
});
