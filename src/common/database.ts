import { Global, Injectable, Module } from '@nestjs/common';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';

/**
 * The pg pool behind TypeORM's data source. TypeORM owns the connection settings and the migrations;
 * the service's own tables are read and written with plain SQL through `Database` (row locks, SKIP
 * LOCKED, NOTIFY, `unnest` batches), sharing this one pool.
 */
export function pgPool(db: DataSource): Pool {
  return (db.driver as unknown as { master: Pool }).master;
}

/** A pooled connection or a transaction's client: what a statement runs on. */
export type Queryable = Pick<Pool | PoolClient, 'query'>;

/**
 * A checked-out client has no `error` listener (the pool removes its own while the client is lent),
 * and node-postgres emits `error` when the server ends the session (a restart, pg_terminate_backend)
 * even when a query of it rejects too. Unheard, that event would end the process; the transaction's
 * query or COMMIT fails anyway, which is what its caller handles.
 */
const ignoreLentClientError = (): void => undefined;

/**
 * Runs `fn` in a transaction on one pooled connection; rolls back on any error. `begin` opens it: a
 * caller may append statements that take no parameters (a lock) to share BEGIN's round trip.
 */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  client.on('error', ignoreLentClientError);
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.removeListener('error', ignoreLentClientError);
    client.release();
  }
}

/**
 * The one way the service reaches its own tables: plain SQL on the shared pool. Repositories take it by
 * injection; nothing else reaches into TypeORM's driver.
 */
@Injectable()
export class Database {
  readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = pgPool(dataSource);
  }

  query<R extends QueryResultRow = QueryResultRow>(
    text: string | QueryConfig,
    values?: unknown[],
  ): Promise<QueryResult<R>> {
    return typeof text === 'string'
      ? this.pool.query<R>(text, values)
      : this.pool.query<R>({ ...text, values: values ?? text.values });
  }

  transaction<T>(fn: (client: PoolClient) => Promise<T>, begin?: string): Promise<T> {
    return withTransaction(this.pool, fn, begin);
  }
}

/** Provides `Database` to every module. */
@Global()
@Module({ providers: [Database], exports: [Database] })
export class DatabaseModule {}
