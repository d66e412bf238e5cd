import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database } from '../common/database';
import { KEY_ACTIVE } from '../common/key-check.sql';
import { firstMissingScope, type Scope } from '../common/scopes';

/** A key as listed: never its hash. */
export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export type CreatedKeyRow = Pick<
  ApiKeyRow,
  'id' | 'workspace_id' | 'name' | 'scopes' | 'created_at'
>;

/** The active key a presented key hashes to: what the API-key guard needs, in one query. */
export interface ActiveKeyRow {
  id: string;
  workspace_id: string;
  scopes: Scope[];
}

/** A key to store: `scopes` already checked and in canonical order. */
export interface NewKey {
  workspaceId: string;
  name: string;
  keyHash: string;
  scopes: readonly Scope[];
}

/** Why a key was not created in a named workspace. */
export type NotCreated = 'no-workspace' | 'has-active-key';

/**
 * The outcome of a revocation; `revoked` also when the key already was; `lacks-scope` names the first
 * scope of the key that the caller does not hold.
 */
export type RevokeResult =
  | { kind: 'revoked' | 'not-found' | 'own-key' | 'last-active' }
  | { kind: 'lacks-scope'; scope: Scope };

/**
 * API keys, stored as the SHA-256 of the key. The statements that decide from a workspace's keys
 * (the first key of a workspace, the last active one) run under the workspace row lock, which
 * serialises them with each other.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  /** The active key with this hash, if any, with its scopes. */
  async findActive(keyHash: string): Promise<ActiveKeyRow | undefined> {
    // Every authenticated request runs this: a named statement is parsed and planned once per
    // connection. The scopes come with it, so the scope check costs no round trip of its own.
    const res = await this.db.query<ActiveKeyRow>({
      name: 'api_key_lookup',
      text: 'SELECT id, workspace_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      values: [keyHash],
    });
    return res.rows[0];
  }

  /** Whether the key `id` exists and is not revoked. */
  async isActive(id: string): Promise<boolean> {
    const res = await this.db.query({ name: 'api_key_active', text: KEY_ACTIVE, values: [id] });
    return (res.rowCount ?? 0) > 0;
  }

  /** The name of the workspace's key `id` while it is active. */
  async activeName(workspaceId: string, id: string): Promise<string | undefined> {
    const res = await this.db.query<{ name: string }>(
      'SELECT name FROM api_keys WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL',
      [workspaceId, id],
    );
    return res.rows[0]?.name;
  }

  async touch(keyId: string): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
  }

  async list(workspaceId: string): Promise<ApiKeyRow[]> {
    const res = await this.db.query<ApiKeyRow>(
      `SELECT id, workspace_id, name, scopes, created_at, last_used_at, revoked_at FROM api_keys
       WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`,
      [workspaceId],
    );
    return res.rows;
  }

  /** A key in a workspace known to exist (the caller's). */
  insert(key: NewKey): Promise<CreatedKeyRow> {
    return insertKey(this.db, key);
  }

  /**
   * A key in a workspace named by the caller, under its row lock: 'no-workspace' when there is no
   * such workspace; with `onlyFirst`, 'has-active-key' when the workspace already has an active key
   * (the lock makes concurrent first keys wait, so only one of them sees none).
   */
  insertLocked(key: NewKey, onlyFirst: boolean): Promise<CreatedKeyRow | NotCreated> {
    return this.db.transaction(async (client) => {
      if (!(await lockWorkspace(client, key.workspaceId))) return 'no-workspace';
      if (onlyFirst) {
        const active = await client.query(
          'SELECT 1 FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL LIMIT 1',
          [key.workspaceId],
        );
        if (active.rows.length > 0) return 'has-active-key';
      }
      return insertKey(client, key);
    });
  }

  /**
   * Revokes the key `id` of the workspace, unless it is the caller's own (`callerKeyId`), has a scope
   * the caller lacks (`callerScopes`), or is the workspace's last active key. Revoking twice keeps the
   * first revocation time and answers the same.
   */
  revoke(
    workspaceId: string,
    caller: { keyId: string; scopes: readonly Scope[] },
    id: string,
  ): Promise<RevokeResult> {
    return this.db.transaction(async (client) => {
      await lockWorkspace(client, workspaceId);
      const res = await client.query<{ revoked: boolean; scopes: Scope[]; others_active: number }>(
        `SELECT k.revoked_at IS NOT NULL AS revoked, k.scopes,
                (SELECT count(*)::int FROM api_keys o
                 WHERE o.workspace_id = k.workspace_id AND o.revoked_at IS NULL AND o.id <> k.id)
                  AS others_active
         FROM api_keys k WHERE k.id = $1 AND k.workspace_id = $2`,
        [id, workspaceId],
      );
      if (res.rows.length === 0) return { kind: 'not-found' };
      if (id === caller.keyId) return { kind: 'own-key' };
      const missing = firstMissingScope(res.rows[0].scopes, caller.scopes);
      if (missing !== undefined) return { kind: 'lacks-scope', scope: missing };
      if (res.rows[0].revoked) return { kind: 'revoked' };
      if (res.rows[0].others_active === 0) return { kind: 'last-active' };
      await client.query(
        'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND workspace_id = $2',
        [id, workspaceId],
      );
      return { kind: 'revoked' };
    });
  }
}

/** Locks the workspace row; false when there is no such workspace. */
async function lockWorkspace(client: PoolClient, workspaceId: string): Promise<boolean> {
  const res = await client.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [
    workspaceId,
  ]);
  return res.rows.length > 0;
}

async function insertKey(client: Pick<Database, 'query'>, key: NewKey): Promise<CreatedKeyRow> {
  const res = await client.query<CreatedKeyRow>(
    `INSERT INTO api_keys (workspace_id, name, key_hash, scopes) VALUES ($1, $2, $3, $4)
     RETURNING id, workspace_id, name, scopes, created_at`,
    [key.workspaceId, key.name, key.keyHash, key.scopes],
  );
  return res.rows[0];
}
