import { IsObject, IsOptional, IsString, Length } from 'class-validator';
import { AsGiven } from '../../common/validation';
import { BaseStepDto } from '../../steps/step-dtos';

export class TaskStepDto extends BaseStepDto {
  @IsString() @Length(1, 100) handler: string;
  @IsOptional() @IsObject() @AsGiven() config?: Record<string, unknown>;
}
