import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { BaseStepDto } from '../steps/step-dtos';

export class ApprovalStepDto extends BaseStepDto {
  @IsString() @Length(1, 200) contentKey: string;
  @IsOptional() @IsString() @MaxLength(10_000) prompt?: string;
  @IsOptional() @IsString() @Length(1, 100) regenerateFrom?: string;
}
