import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { BaseStepDto, MAX_DUE_IN_MS } from '../../steps/step-dtos';

export class WaitStepDto extends BaseStepDto {
  @IsOptional() @IsInt() @Min(0) @Max(MAX_DUE_IN_MS) durationMs?: number;
  @IsOptional() @IsString() @Length(1, 200) until?: string;
}
