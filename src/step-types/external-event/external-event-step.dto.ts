import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { BaseStepDto, MAX_DUE_IN_MS } from '../../steps/step-dtos';

export class ExternalEventStepDto extends BaseStepDto {
  @IsOptional() @IsString() @Length(1, 100) signalType?: string;
  /**
   * A due time in PostgreSQL, not a timer: it may be as long as a wait. These rules replace the base
   * class's (class-validator keeps a subclass's rules of a kind over the inherited ones); the
   * initializer only lets the field be redeclared, as every field starts undefined anyway.
   */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_DUE_IN_MS) override timeoutMs?: number = undefined;
}
