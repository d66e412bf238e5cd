import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import type { ApiKeyRow } from '../api-keys.repository';

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
}

export class CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'The full key; shown only in this answer', example: 'svc_...' })
  key: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastUsedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revokedAt: string | null;

  static from(k: ApiKeyRow): ApiKeyDto {
    return {
      id: k.id,
      workspaceId: k.workspace_id,
      name: k.name,
      lastUsedAt: k.last_used_at?.toISOString() ?? null,
      createdAt: k.created_at.toISOString(),
      revokedAt: k.revoked_at?.toISOString() ?? null,
    };
  }
}

export class RevokedDto {
  @ApiProperty({ type: 'boolean', enum: [true] }) revoked: true;
}
