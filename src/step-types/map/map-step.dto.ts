import { IsInt, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AsGiven } from '../../common/validation';
import { BaseStepDto } from '../../steps/step-dtos';

/**
 * The most items one map step may have (its `maxItems` default and bound): one row each, seeded in
 * one statement, and an output that holds every result.
 */
export const MAX_MAP_ITEMS = 10_000;

/** The most items of one map step executing at once, in the process that runs the step. */
export const MAX_MAP_CONCURRENCY = 1000;

export class MapStepDto extends BaseStepDto {
  /** A dot path into the run state naming the array to map over. */
  @IsString() @Length(1, 200) items: string;
  /** The sub-step run for each item (checked by the descriptor: a `task`). */
  @IsObject() @AsGiven() step: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_MAP_CONCURRENCY) maxConcurrency?: number;
  /** A count, or a percentage of the items as a string such as "10%" (checked by the descriptor). */
  @IsOptional() toleratedFailures?: number | string;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_MAP_ITEMS) maxItems?: number;
}
