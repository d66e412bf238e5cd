import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The pg pool behind TypeORM's data source. The executor and the run transitions use it directly for
 * plain SQL with row locks, SKIP LOCKED and NOTIFY, sharing one pool with the rest of the service.
 */
export function pgPool(db: DataSource): Pool {
  return (db.driver as unknown as { master: Pool }).master;
}

/** Runs `fn` in a transaction on one pooled connection; rolls back on any error. */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Thrown inside a transaction to roll it back on purpose and carry a result out. */
export class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super('rollback');
  }
}
