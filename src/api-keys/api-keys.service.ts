import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuthContext } from '../common/auth';
import { AuthError, ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import { ApiKeyEntity } from './api-key.entity';
import { MISSING_KEY } from './api-key.guard';
import { generateApiKey, hashApiKey } from './api-key-auth.service';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

export const LAST_ACTIVE_KEY =
  'cannot revoke the last active API key of the workspace; create another key first';

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly db: DataSource,
    @InjectRepository(ApiKeyEntity) private readonly repo: Repository<ApiKeyEntity>,
  ) {}

  /** Creates a key following design §2: in the caller's workspace, or a bootstrap key. */
  async create(auth: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    switch (auth.kind) {
      case 'key':
        // A key always creates in its own workspace; naming another one reveals nothing about it.
        if (dto.workspaceId !== undefined && dto.workspaceId !== auth.workspaceId) {
          throw new NotFoundError('workspace');
        }
        return this.insert(this.db.manager, auth.workspaceId, dto.name);
      case 'admin':
        if (dto.workspaceId === undefined) {
          throw ValidationError.field(
            'workspaceId',
            'workspaceId is required when authenticating with x-admin-token',
          );
        }
        return this.db.transaction(async (tx) => {
          if (!(await this.lockWorkspace(tx, dto.workspaceId!))) {
            throw new NotFoundError('workspace');
          }
          return this.insert(tx, dto.workspaceId!, dto.name);
        });
      case 'bootstrap': {
        const workspaceId = dto.workspaceId;
        if (workspaceId === undefined) throw new AuthError(MISSING_KEY);
        return this.db.transaction(async (tx) => {
          // Without credentials, an unknown (or malformed) workspace answers exactly like one that
          // has keys: a 404 here would let anyone probe which workspace ids exist.
          // The row lock serialises concurrent bootstrap attempts: only one can see "no active key".
          if (!(await this.lockWorkspace(tx, workspaceId))) throw new AuthError(MISSING_KEY);
          const active = await tx.query(
            'SELECT 1 FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL LIMIT 1',
            [workspaceId],
          );
          if (active.length > 0) throw new AuthError(MISSING_KEY);
          return this.insert(tx, workspaceId, dto.name);
        });
      }
    }
  }

  async list(workspaceId: string): Promise<ApiKeyDto[]> {
    const keys = await this.repo.find({
      where: { workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    return keys.map((k) => ApiKeyDto.from(k));
  }

  /**
   * Revokes a key, never the last active one of its workspace: without ADMIN_TOKEN a workspace with no
   * active key accepts a first key from anyone (design §2). The workspace row lock serialises
   * revocations with each other and with bootstrap creations, so that concurrent revocations by
   * different keys cannot each see "another key is left" and leave none.
   */
  async revoke(workspaceId: string, callerKeyId: string, id: string): Promise<{ revoked: true }> {
    return this.db.transaction(async (tx) => {
      await this.lockWorkspace(tx, workspaceId);
      const rows: Array<{ revoked: boolean; others_active: number }> = await tx.query(
        `SELECT k.revoked_at IS NOT NULL AS revoked,
                (SELECT count(*)::int FROM api_keys o
                 WHERE o.workspace_id = k.workspace_id AND o.revoked_at IS NULL AND o.id <> k.id)
                  AS others_active
         FROM api_keys k WHERE k.id = $1 AND k.workspace_id = $2`,
        [id, workspaceId],
      );
      if (rows.length === 0) throw new NotFoundError('API key');
      if (id === callerKeyId) {
        throw new ConflictError('cannot revoke the API key used for this request');
      }
      // Revoking twice keeps the first revocation time and answers the same.
      if (rows[0].revoked) return { revoked: true as const };
      if (rows[0].others_active === 0) throw new ConflictError(LAST_ACTIVE_KEY);
      await tx.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND workspace_id = $2', [
        id,
        workspaceId,
      ]);
      return { revoked: true as const };
    });
  }

  /**
   * Locks the workspace row; false when there is no such workspace. The bootstrap and admin paths name
   * it in the body, not the path (so IdPipe does not check it): a malformed id is no workspace.
   */
  private async lockWorkspace(tx: EntityManager, workspaceId: string): Promise<boolean> {
    const rows: unknown[] = isUuid(workspaceId)
      ? await tx.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId])
      : [];
    return rows.length > 0;
  }

  private async insert(
    tx: EntityManager,
    workspaceId: string,
    name: string,
  ): Promise<CreatedApiKeyDto> {
    const key = generateApiKey();
    const [row] = await tx.query<
      Array<{ id: string; workspace_id: string; name: string; created_at: Date }>
    >(
      `INSERT INTO api_keys (workspace_id, name, key_hash) VALUES ($1, $2, $3)
       RETURNING id, workspace_id, name, created_at`,
      [workspaceId, name, hashApiKey(key)],
    );
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      name: row.name,
      key,
      createdAt: row.created_at.toISOString(),
    };
  }
}
