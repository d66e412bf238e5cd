import { MigrationInterface, QueryRunner } from 'typeorm';

/** Workspaces and their API keys (only the SHA-256 hash of a key is stored). */
export class Foundation1763900000000 implements MigrationInterface {
  name = 'Foundation1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(100) NOT NULL,
        slug varchar(50) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workspaces_slug_key UNIQUE (slug)
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        key_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
      )`);
    await q.query(
      `CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE workspaces`);
  }
}
