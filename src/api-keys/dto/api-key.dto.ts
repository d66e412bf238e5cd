import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsOptional,
  IsString,
  Length,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { SCOPES, scopeListProblem, sortScopes, type Scope } from '../../common/scopes';
import type { ApiKeyRow } from '../api-keys.repository';

/**
 * A list of scopes as scopeListProblem() takes it, checked in one pass (class-validator's ArrayUnique
 * compares every pair: a body of 1 MiB of distinct numbers would hold the process for seconds).
 */
function IsScopeList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isScopeList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => scopeListProblem(value) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          scopeListProblem(args?.value) ?? 'scopes is invalid',
      },
    });
}

const SCOPES_ANSWER = {
  description:
    'What the key may do, in the canonical order of the scope list (README "Scopes"), whatever ' +
    'order they were asked for in',
  enum: SCOPES,
  isArray: true,
  example: ['runs:read', 'approvals:read', 'approvals:decide'],
} as const;

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'ci-pipeline' })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Bootstrap only (design §2): the workspace to create the first key in, with x-admin-token or, ' +
      'when no ADMIN_TOKEN is configured, while the workspace has no active key.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  workspaceId?: string;

  @ApiPropertyOptional({
    description:
      'What the key may do (README "Scopes"): at least one scope, each once. Default: every ' +
      'scope. A key may create only keys whose scopes it holds itself (403 FORBIDDEN `API key ' +
      'lacks scope <scope>` naming the first it lacks); the first key of a workspace created ' +
      'without credentials (no ADMIN_TOKEN) has every scope.',
    enum: SCOPES,
    isArray: true,
    example: ['runs:read', 'approvals:read', 'approvals:decide'],
  })
  // Left out means every scope; null is not "left out" and is refused like any other non-array.
  @ValidateIf((_dto: object, value: unknown) => value !== undefined)
  @IsScopeList()
  scopes?: Scope[];
}

export class CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'The full key; shown only in this answer', example: 'svc_...' })
  key: string;
  @ApiProperty(SCOPES_ANSWER) scopes: Scope[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty(SCOPES_ANSWER) scopes: Scope[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastUsedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;

  static from(k: ApiKeyRow): ApiKeyDto {
    return {
      id: k.id,
      workspaceId: k.workspace_id,
      name: k.name,
      scopes: sortScopes(k.scopes),
      lastUsedAt: k.last_used_at?.toISOString() ?? null,
      createdAt: k.created_at.toISOString(),
      revokedAt: k.revoked_at?.toISOString() ?? null,
    };
  }
}

export class RevokedDto {
  @ApiProperty({ type: 'boolean', enum: [true] }) revoked: true;
}
