import { IsOptional, IsString, Length } from 'class-validator';
import { BaseStepDto } from '../../steps/step-dtos';

export class ConditionStepDto extends BaseStepDto {
  @IsString() @Length(1, 2000) expression: string;
  @IsOptional() @IsString() @Length(1, 100) then?: string;
  @IsOptional() @IsString() @Length(1, 100) else?: string;
}
