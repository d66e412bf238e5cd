import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import type { WorkspaceRow } from '../workspaces.repository';

export class CreateWorkspaceDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Acme' })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({ minLength: 1, maxLength: 50, pattern: '^[a-z0-9-]+$', example: 'acme' })
  @IsString()
  @Length(1, 50)
  @Matches(/^[a-z0-9-]+$/, {
    message: 'slug must contain only lowercase letters, digits and hyphens',
  })
  slug: string;
}

export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() slug: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;

  static from(w: WorkspaceRow): WorkspaceDto {
    return {
      id: w.id,
      name: w.name,
      slug: w.slug,
      createdAt: w.created_at.toISOString(),
      updatedAt: w.updated_at.toISOString(),
    };
  }
}
