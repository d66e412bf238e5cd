import { IsOptional, IsString, Length } from 'class-validator';
import { BaseStepDto } from 'workflow-orchestrator';

/** The fields of a `shout` step, beside the common ones (name, outputKey, retry, timeoutMs). */
export class ShoutStepDto extends BaseStepDto {
  /** The text to shout, with `{{placeholders}}` from the run state. */
  @IsOptional() @IsString() @Length(1, 1000) text?: string;
  /** Or a key of the run state whose string value is shouted. */
  @IsOptional() @IsString() @Length(1, 200) from?: string;
}
