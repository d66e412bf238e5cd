import path from 'node:path';
import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';

/** An arbitrary but fixed advisory-lock key: only one replica migrates at a time. */
const MIGRATION_LOCK_KEY = 727_001;

/**
 * Where the migrations live: TypeScript sources when running under ts-node/ts-jest, compiled JavaScript
 * (dist/migrations) in a build.
 */
export function migrationGlobs(): string[] {
  const compiled = !__filename.endsWith('.ts');
  return compiled
    ? [path.resolve(__dirname, '..', 'migrations', '*.js')]
    : [path.resolve(__dirname, '..', '..', 'migrations', '*.ts')];
}

export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: migrationGlobs(),
    migrationsTableName: 'schema_migrations',
    entities: [],
  };
}

/**
 * Applies pending migrations while holding a session-level advisory lock on a separate connection, so
 * replicas that start together wait for each other instead of racing on DDL.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const lock = new Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const ds = new DataSource(dataSourceOptions(url));
    await ds.initialize();
    try {
      const applied = await ds.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await ds.destroy();
    }
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}
