import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key (README "Idempotent requests"): one row per key and scope (`ws:<workspace id>`, or
 * `ip:<client address>` for requests without an API key). The first request claims the key by
 * inserting its row (the primary key decides between concurrent duplicates), with `owner` and a lease
 * (`locked_until`) while it runs; its answer (`status`, the `headers` a replay carries, `body`) is
 * written when it is sent. `method`, `path`, `body_hash` (SHA-256 of the canonical body) and `caller`
 * (the API key, for routes whose answer holds a secret) tell a replay from a reuse. A body that holds
 * a secret is stored encrypted (`enc:v1:...`, ENCRYPTION_KEY), or not at all (`secret_withheld`).
 * Rows live until `expires_at` (IDEMPOTENCY_KEY_TTL_MS after the first request); the cleanup deletes
 * them by the `expires_at` index.
 *
 * `job_leases`: one row per periodic job that a single replica at a time runs (the cleanup), held by
 * `holder` until `lease_until`.
 *
 * fillfactor 70: the answer is written into the row a moment after the claim inserted it; free room on
 * the page lets that update stay on the page (a HOT update: no new index entries).
 */
export class IdempotencyKeys1763900016000 implements MigrationInterface {
  name = 'IdempotencyKeys1763900016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key varchar(255) NOT NULL,
        method varchar(10) NOT NULL,
        path text NOT NULL,
        body_hash bytea NOT NULL,
        caller uuid,
        owner uuid,
        locked_until timestamptz,
        status smallint,
        headers jsonb,
        body text,
        secret_withheld boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      ) WITH (fillfactor = 70)`);
    await q.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);
    await q.query(`
      CREATE TABLE job_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        lease_until timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE job_leases`);
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
