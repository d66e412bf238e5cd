import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ConflictError, isUniqueViolation, NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { CreateWorkspaceDto, WorkspaceDto } from './dto/workspace.dto';
import { WorkspaceEntity } from './workspace.entity';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectRepository(WorkspaceEntity) private readonly repo: Repository<WorkspaceEntity>,
  ) {}

  async create(dto: CreateWorkspaceDto): Promise<WorkspaceDto> {
    try {
      const saved = await this.repo.save(this.repo.create({ name: dto.name, slug: dto.slug }));
      return WorkspaceDto.from(saved);
    } catch (err) {
      // The unique constraint decides between concurrent creations of one slug.
      if (isUniqueViolation(err, 'workspaces_slug_key')) {
        throw new ConflictError(`a workspace with slug "${dto.slug}" already exists`);
      }
      throw err;
    }
  }

  async get(id: string): Promise<WorkspaceDto> {
    const found = isUuid(id) ? await this.repo.findOneBy({ id }) : null;
    if (!found) throw new NotFoundError('workspace');
    return WorkspaceDto.from(found);
  }

  async exists(id: string): Promise<boolean> {
    return isUuid(id) && (await this.repo.existsBy({ id }));
  }
}
