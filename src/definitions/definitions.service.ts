import { Inject, Injectable } from '@nestjs/common';
import {
  ConflictError,
  isUniqueViolation,
  LimitExceededError,
  NotFoundError,
  ValidationError,
} from '../common/errors';
import { jsonWithin } from '../common/limits';
import { usdDecimal } from '../common/usd';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { StepTypeRegistry } from '../steps/step-type.registry';
import type { StepDefinition } from '../steps/step-definition';
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
    // The run-level budget fields appear only when given (README "Budgets").
    ...(row.max_cost_usd === null ? {} : { maxCostUsd: Number(row.max_cost_usd) }),
    ...(row.on_budget_exceeded === null ? {} : { onBudgetExceeded: row.on_budget_exceeded }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** How a step names a child definition. */
interface ChildRef {
  definitionId?: string;
  definitionName?: string;
  version?: string;
}

/**
 * The child definition a step starts runs of: a `workflow` step's, or a `map` step's whose sub-step
 * is a workflow (`path` is then `.step`, the fields' place in the step).
 */
function childRef(step: StepDefinition): { step: ChildRef; path: string } | undefined {
  if (step.type === 'workflow') return { step, path: '' };
  if (step.type === 'map' && (step.step as { type?: unknown }).type === 'workflow') {
    return { step: step.step as ChildRef, path: '.step' };
  }
  return undefined;
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
    const { steps, errors } = validateSteps(dto.steps, this.stepTypes.descriptors(), this.config);
    if (errors.length > 0) throw new ValidationError(errors);
    const childErrors = await this.checkChildDefinitions(workspaceId, dto, steps);
    if (childErrors.length > 0) throw new ValidationError(childErrors);
    const stepsJson = jsonWithin(steps, definitionBytes, 'steps', 'MAX_DEFINITION_BYTES');
    try {
      const row = await this.repo.insert(
        workspaceId,
        {
          name: dto.name,
          version: dto.version,
          description: dto.description,
          stepsJson,
          maxCostUsd: dto.maxCostUsd === undefined ? undefined : usdDecimal(dto.maxCostUsd),
          onBudgetExceeded: dto.onBudgetExceeded,
        },
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

  /**
   * The `workflow` steps' targets, which need the database: each must be a definition of this
   * workspace, not the one being created (a definition cannot start itself), and must not nest child
   * runs past WORKFLOW_MAX_DEPTH. Definitions are immutable and a target must exist first, so no
   * longer cycle can be written: a definition can only start ones created before it.
   */
  private async checkChildDefinitions(
    workspaceId: string,
    dto: CreateDefinitionDto,
    steps: StepDefinition[],
  ): Promise<Array<{ field: string; message: string }>> {
    const errors: Array<{ field: string; message: string }> = [];
    const maxDepth = this.config.executor.workflowMaxDepth;
    const depths = new Map<string, number>();
    for (const [i, found] of steps.entries()) {
      const child = childRef(found);
      if (!child) continue;
      const { step, path } = child;
      const field = step.definitionId
        ? `steps[${i}]${path}.definitionId`
        : `steps[${i}]${path}.definitionName`;
      if (step.definitionName === dto.name && step.version === dto.version) {
        errors.push({ field, message: 'would recurse: a definition cannot start itself' });
        continue;
      }
      const target = step.definitionId
        ? await this.repo.get(workspaceId, step.definitionId)
        : await this.repo.getByNameVersion(workspaceId, step.definitionName!, step.version!);
      if (!target) {
        errors.push({ field, message: 'no such definition in this workspace' });
        continue;
      }
      const depth = 1 + (await this.nestingDepth(workspaceId, target, depths, maxDepth));
      if (depth > maxDepth) {
        errors.push({
          field,
          message: `would nest child runs ${depth} deep, past the limit of ${maxDepth} (WORKFLOW_MAX_DEPTH)`,
        });
      }
    }
    return errors;
  }

  /** How deep the runs of `def` nest child runs through its `workflow` steps (0: none), capped. */
  private async nestingDepth(
    workspaceId: string,
    def: DefinitionRow,
    memo: Map<string, number>,
    cap: number,
  ): Promise<number> {
    const known = memo.get(def.id);
    if (known !== undefined) return known;
    let depth = 0;
    for (const found of def.steps) {
      const step = childRef(found)?.step;
      if (!step || cap <= 0) continue;
      const target = step.definitionId
        ? await this.repo.get(workspaceId, step.definitionId)
        : await this.repo.getByNameVersion(workspaceId, step.definitionName!, step.version!);
      if (!target) continue;
      depth = Math.max(depth, 1 + (await this.nestingDepth(workspaceId, target, memo, cap - 1)));
    }
    memo.set(def.id, depth);
    return depth;
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
