import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every scope of src/common/scopes.ts, in its order (a migration never imports the service's code). */
const ALL_SCOPES = `ARRAY['definitions:read', 'definitions:write', 'runs:read', 'runs:write',
  'approvals:read', 'approvals:decide', 'costs:read', 'webhooks:read', 'webhooks:write',
  'keys:read', 'keys:write', 'schedules:read', 'schedules:write']::text[]`;

/**
 * What each API key may do (README "Scopes"). Existing keys get every scope, so that their clients
 * see no change; the default stays, so that a replica of the previous version still running during a
 * rollout creates keys that can do everything, as it did. The service stores the scopes in their
 * canonical order, at least one, each a known scope (the CHECK keeps a stray value out). Read with the
 * key in the query that authenticates it (by key_hash): no index of its own.
 */
export class ApiKeyScopes1763900012000 implements MigrationInterface {
  name = 'ApiKeyScopes1763900012000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN scopes text[] NOT NULL DEFAULT ${ALL_SCOPES},
        ADD CONSTRAINT api_keys_scopes_check
          CHECK (cardinality(scopes) > 0 AND scopes <@ ${ALL_SCOPES})`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN scopes`);
  }
}
