import { IsBoolean, IsObject, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { AsGiven } from '../../common/validation';
import { BaseStepDto } from '../../steps/step-dtos';

export class WorkflowStepDto extends BaseStepDto {
  /** The child's definition by id; or `definitionName` with `version` (checked by the descriptor). */
  @IsOptional() @IsUUID() definitionId?: string;
  @IsOptional() @IsString() @Length(1, 200) definitionName?: string;
  @IsOptional() @IsString() @Length(1, 50) version?: string;
  /** The child's input: a template over the run state, rendered like a task's config. */
  @IsOptional() @IsObject() @AsGiven() input?: Record<string, unknown>;
  @IsOptional() @IsBoolean() waitForCompletion?: boolean;
}
