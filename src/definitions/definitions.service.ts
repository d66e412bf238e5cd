import { Injectable } from '@nestjs/common';
import { ConflictError, isUniqueViolation, NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import { DefinitionRow, DefinitionsRepository } from './definitions.repository';
import { CreateDefinitionDto, DefinitionDto } from './dto/definition.dto';
import { validateSteps } from './steps/validate-steps';

function toDto(row: DefinitionRow): DefinitionDto {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    version: row.version,
    description: row.description,
    steps: row.steps,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

@Injectable()
export class DefinitionsService {
  constructor(private readonly repo: DefinitionsRepository) {}

  async create(workspaceId: string, dto: CreateDefinitionDto): Promise<DefinitionDto> {
    const { steps, errors } = validateSteps(dto.steps);
    if (errors.length > 0) throw new ValidationError(errors);
    try {
      return toDto(await this.repo.insert(workspaceId, { ...dto, steps }));
    } catch (err) {
      if (isUniqueViolation(err, 'workflow_definitions_name_version_key')) {
        throw new ConflictError(
          `definition "${dto.name}" version "${dto.version}" already exists; definitions are immutable, create a new version`,
        );
      }
      throw err;
    }
  }

  async list(workspaceId: string): Promise<DefinitionDto[]> {
    return (await this.repo.list(workspaceId)).map(toDto);
  }

  async get(workspaceId: string, id: string): Promise<DefinitionDto> {
    const row = isUuid(id) ? await this.repo.get(workspaceId, id) : undefined;
    if (!row) throw new NotFoundError('workflow definition');
    return toDto(row);
  }
}
