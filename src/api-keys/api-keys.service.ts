import { Injectable } from '@nestjs/common';
import type { AuthContext, KeyAuth } from '../common/auth';
import {
  AuthError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../common/errors';
import { isUuid } from '../common/ids';
import { firstMissingScope, lacksScopeMessage, SCOPES, sortScopes } from '../common/scopes';
import { MISSING_KEY } from './api-key.guard';
import { generateApiKey, hashApiKey } from './api-key-auth.service';
import {
  ApiKeysRepository,
  type CreatedKeyRow,
  type NewKey,
  type NotCreated,
} from './api-keys.repository';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

export const FIRST_KEY_SCOPES =
  'the first key of a workspace, created without credentials, has every scope: leave scopes out ' +
  '(with ADMIN_TOKEN configured, the admin token may create keys with fewer)';

export const LAST_ACTIVE_KEY =
  'cannot revoke the last active API key of the workspace; create another key first';

@Injectable()
export class ApiKeysService {
  constructor(private readonly keys: ApiKeysRepository) {}

  /**
   * Creates a key following design §2: in the caller's workspace, or a bootstrap key. Its scopes
   * (default: every scope) must all be held by the calling key, so that no key ever makes a key that
   * can do more than itself; the admin token may give any.
   */
  async create(auth: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const key = generateApiKey();
    const scopes = sortScopes(dto.scopes ?? SCOPES);
    const newKey = (workspaceId: string) => ({
      workspaceId,
      name: dto.name,
      keyHash: hashApiKey(key),
      scopes,
    });
    switch (auth.kind) {
      case 'key': {
        // A key always creates in its own workspace; naming another one reveals nothing about it.
        if (dto.workspaceId !== undefined && dto.workspaceId !== auth.workspaceId) {
          throw new NotFoundError('workspace');
        }
        const missing = firstMissingScope(scopes, auth.scopes);
        if (missing !== undefined) throw new ForbiddenError(lacksScopeMessage(missing));
        return created(await this.keys.insert(newKey(auth.workspaceId)), key);
      }
      case 'admin': {
        if (dto.workspaceId === undefined) {
          throw ValidationError.field(
            'workspaceId',
            'workspaceId is required when authenticating with x-admin-token',
          );
        }
        const row = await this.insertInNamedWorkspace(newKey(dto.workspaceId), false);
        if (typeof row === 'string') throw new NotFoundError('workspace');
        return created(row, key);
      }
      case 'bootstrap': {
        if (dto.workspaceId === undefined) throw new AuthError(MISSING_KEY);
        // The first key is the workspace's only way to make others (without ADMIN_TOKEN nothing else
        // can, once it exists): one without keys:write, or without a scope, would lock the
        // workspace out of it for good.
        if (scopes.length !== SCOPES.length) {
          throw ValidationError.field('scopes', FIRST_KEY_SCOPES);
        }
        // Without credentials, an unknown (or malformed) workspace answers exactly like one that has
        // keys: a 404 here would let anyone probe which workspace ids exist.
        const row = await this.insertInNamedWorkspace(newKey(dto.workspaceId), true);
        if (typeof row === 'string') throw new AuthError(MISSING_KEY);
        return created(row, key);
      }
    }
  }

  /** The name of an active key of the workspace (a console session's), or undefined once revoked. */
  activeKeyName(workspaceId: string, keyId: string): Promise<string | undefined> {
    return this.keys.activeName(workspaceId, keyId);
  }

  async list(workspaceId: string): Promise<ApiKeyDto[]> {
    return (await this.keys.list(workspaceId)).map((k) => ApiKeyDto.from(k));
  }

  /**
   * Revokes a key, never the last active one of its workspace: without ADMIN_TOKEN a workspace with no
   * active key accepts a first key from anyone (design §2). The workspace row lock serialises
   * revocations with each other and with bootstrap creations, so that concurrent revocations by
   * different keys cannot each see "another key is left" and leave none. A key revokes only keys whose
   * scopes it holds, those it could have created: otherwise a narrow key with keys:write could revoke
   * every wider key and leave the workspace with no key able to do the rest.
   */
  async revoke(caller: KeyAuth, id: string): Promise<{ revoked: true }> {
    const result = await this.keys.revoke(caller.workspaceId, caller, id);
    switch (result.kind) {
      case 'not-found':
        throw new NotFoundError('API key');
      case 'own-key':
        // A console session holds its key: revoking it would end the session in the middle of a click.
        throw new ConflictError(
          caller.via === 'session'
            ? 'cannot revoke the API key of this console session'
            : 'cannot revoke the API key used for this request',
        );
      case 'last-active':
        throw new ConflictError(LAST_ACTIVE_KEY);
      case 'lacks-scope':
        throw new ForbiddenError(lacksScopeMessage(result.scope));
      case 'revoked':
        return { revoked: true as const };
    }
  }

  /**
   * The admin and bootstrap paths name the workspace in the body, not the path (so IdPipe does not
   * check it): a malformed id is no workspace.
   */
  private insertInNamedWorkspace(
    key: NewKey,
    onlyFirst: boolean,
  ): Promise<CreatedKeyRow | NotCreated> {
    if (!isUuid(key.workspaceId)) return Promise.resolve('no-workspace');
    return this.keys.insertLocked(key, onlyFirst);
  }
}

function created(row: CreatedKeyRow, key: string): CreatedApiKeyDto {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    key,
    scopes: sortScopes(row.scopes),
    createdAt: row.created_at.toISOString(),
  };
}
