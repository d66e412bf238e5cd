import { Injectable } from '@nestjs/common';
import { ConflictError, isUniqueViolation, NotFoundError } from '../common/errors';
import { CreateWorkspaceDto, WorkspaceDto } from './dto/workspace.dto';
import { WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  async create(dto: CreateWorkspaceDto): Promise<WorkspaceDto> {
    try {
      return WorkspaceDto.from(await this.workspaces.insert(dto.name, dto.slug));
    } catch (err) {
      // The unique constraint decides between concurrent creations of one slug.
      if (isUniqueViolation(err, 'workspaces_slug_key')) {
        throw new ConflictError(`a workspace with slug "${dto.slug}" already exists`);
      }
      throw err;
    }
  }

  /** `id` is the calling key's workspace, set by the API-key guard: always a UUID. */
  async get(id: string): Promise<WorkspaceDto> {
    const found = await this.workspaces.get(id);
    if (!found) throw new NotFoundError('workspace');
    return WorkspaceDto.from(found);
  }
}
