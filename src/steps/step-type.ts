import type { ModuleMetadata, Type } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import type { StepExecutor } from './step-executor';

/**
 * Everything the service knows about one step type, in one place: how a definition's step of that
 * type is validated, how it is retried and timed, and which provider executes it. Registered once
 * (StepTypesModule.register) and looked up in the StepTypeRegistry.
 */
export interface StepTypeDescriptor {
  /** The `type` of such steps in a definition. */
  readonly type: string;
  /** The step's DTO (a BaseStepDto): its fields, validated with unknown fields refused. */
  readonly dto: new () => object;
  /**
   * Rules the DTO cannot express (field combinations, expressions and patterns that must parse, the
   * configured limits of `config` when the caller has one). Runs on every step of the type, even one
   * its DTO refused; `add` reports a field of this step.
   */
  check?(
    step: Record<string, unknown>,
    add: (field: string, message: string) => void,
    config?: AppConfig,
  ): void;
  /** Fields that name another step of the definition (a jump target). */
  readonly jumpFields?: readonly string[];
  /** Attempts when a step sets no `retry.maxAttempts` (design §4: 3 for task and llm, else 1). */
  readonly defaultMaxAttempts: number;
  /**
   * The type reads `timeoutMs` itself (external_event: a due time for its signal; llm: a limit per
   * call), so the executor does not abort the whole step at that time.
   */
  readonly ownsTimeout?: boolean;
  /** The provider that executes such steps. */
  readonly executor: Type<StepExecutor>;
  /** Modules the executor's dependencies come from. */
  readonly imports?: ModuleMetadata['imports'];
}
