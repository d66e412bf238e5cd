import { Inject, Injectable } from '@nestjs/common';
import {
  ConflictError,
  isUniqueViolation,
  LimitExceededError,
  NotFoundError,
  ValidationError,
} from '../common/errors';
import { jsonWithin } from '../common/limits';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { StepTypeRegistry } from '../steps/step-type.registry';
import { validateSteps } from '../steps/validate-steps';
import { DefinitionRow, DefinitionsRepository } from './definitions.repository';
import { CreateDefinitionDto, DefinitionDto } from './dto/definition.dto';

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
  constructor(
    private readonly repo: DefinitionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly stepTypes: StepTypeRegistry,
  ) {}

  async create(workspaceId: string, dto: CreateDefinitionDto): Promise<DefinitionDto> {
    const { definitionBytes, definitionsPerWorkspace } = this.config.limits;
    // The size first: validating steps compiles their expressions and patterns, work that must stay
    // bounded by MAX_DEFINITION_BYTES rather than by the 1 MiB body limit.
    jsonWithin(dto.steps, definitionBytes, 'steps', 'MAX_DEFINITION_BYTES');
    const { steps, errors } = validateSteps(dto.steps, this.stepTypes.descriptors());
    if (errors.length > 0) throw new ValidationError(errors);
    const stepsJson = jsonWithin(steps, definitionBytes, 'steps', 'MAX_DEFINITION_BYTES');
    try {
      const row = await this.repo.insert(
        workspaceId,
        { name: dto.name, version: dto.version, description: dto.description, stepsJson },
        definitionsPerWorkspace,
      );
      if (row === 'limit') {
        throw new LimitExceededError(
          409,
          'body',
          { name: 'MAX_DEFINITIONS_PER_WORKSPACE', value: definitionsPerWorkspace },
          `the workspace already holds ${definitionsPerWorkspace} definitions (every version ` +
            'counts), the most allowed (MAX_DEFINITIONS_PER_WORKSPACE)',
        );
      }
      return toDto(row);
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
    const row = await this.repo.get(workspaceId, id);
    if (!row) throw new NotFoundError('workflow definition');
    return toDto(row);
  }
}
