import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  AuthContext,
  CurrentAuth,
  CurrentKeyAuth,
  CurrentWorkspace,
  KeyAuth,
  KeyOrBootstrapAuth,
  RequiresScope,
} from '../common/auth';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { SecretInAnswer } from '../idempotency/secret-answer';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto, RevokedDto } from './dto/api-key.dto';

@ApiTags('api-keys')
@ApiSecurity('api-key')
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @RequiresScope('keys:write')
  @HttpCode(201)
  @KeyOrBootstrapAuth()
  // The contract stores only a hash of a key: a replay of its creation cannot show it again.
  @SecretInAnswer({ field: 'key', resource: 'API key', store: 'never' })
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'With x-api-key: a key in the caller workspace. Bootstrap: x-admin-token plus workspaceId ' +
      '(ADMIN_TOKEN set), or workspaceId alone while the workspace has no active key (no ADMIN_TOKEN). ' +
      'Without credentials an unknown workspace answers like one that has keys (401), so that ' +
      'workspace ids cannot be probed. `scopes` (default: every scope) must all be held by the ' +
      'calling key: 403 FORBIDDEN `API key lacks scope <scope>` names the first it lacks.',
  })
  @ApiHeader({ name: 'x-admin-token', required: false })
  @ApiEnvelope(CreatedApiKeyDto, 201)
  @ApiErrors(...BODY_ERRORS, 401, 404)
  create(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CreateApiKeyDto,
  ): Promise<CreatedApiKeyDto> {
    return this.keys.create(auth, dto);
  }

  @Get()
  @RequiresScope('keys:read')
  @ApiOperation({ summary: 'List the workspace keys (never the key itself)' })
  @ApiEnvelope(ApiKeyDto, 200, 'array')
  @ApiErrors(401)
  list(@CurrentWorkspace() workspaceId: string): Promise<ApiKeyDto[]> {
    return this.keys.list(workspaceId);
  }

  @Delete(':id')
  @RequiresScope('keys:write')
  @ApiOperation({
    summary: 'Revoke a key at once',
    description:
      '409 CONFLICT when the calling key tries to revoke itself (a console session, the key it ' +
      'holds), or when the key is the last active key of the workspace (a workspace keeps at least ' +
      'one active key). 403 FORBIDDEN `API key lacks scope <scope>` when the key has a scope the ' +
      'calling key lacks: a key revokes only keys it could have created.',
  })
  @ApiEnvelope(RevokedDto)
  @ApiErrors(401, 404, 409)
  revoke(
    @CurrentKeyAuth() caller: KeyAuth,
    @IdParam('API key') id: string,
  ): Promise<{ revoked: true }> {
    return this.keys.revoke(caller, id);
  }
}
