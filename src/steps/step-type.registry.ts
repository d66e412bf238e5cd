import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { StepExecutor } from './step-executor';
import type { StepTypeDescriptor } from './step-type';

/** What one StepTypesModule.register() call contributes: its descriptors and their executors. */
export class StepTypeRegistration {
  constructor(
    readonly entries: ReadonlyArray<{ descriptor: StepTypeDescriptor; executor: unknown }>,
  ) {}
}

type Registered = Map<string, { descriptor: StepTypeDescriptor; executor: StepExecutor }>;

/**
 * Every step type registered with StepTypesModule.register(), from any module, collected once at
 * boot in registration order. A type registered twice, or whose executor cannot execute, fails the
 * boot: a definition must never be accepted for a type that no executor runs.
 */
@Injectable()
export class StepTypeRegistry implements OnModuleInit {
  private collected?: Registered;

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    this.registered();
  }

  /**
   * Collected at module init, or at the first question when that comes sooner: the OpenAPI
   * document, which lists the types, is built before the application is initialised.
   */
  private registered(): Registered {
    if (this.collected) return this.collected;
    const registered: Registered = new Map();
    for (const { instance } of this.discovery.getProviders()) {
      if (!(instance instanceof StepTypeRegistration)) continue;
      for (const { descriptor, executor } of instance.entries) {
        const { type } = descriptor;
        if (registered.has(type)) throw new Error(`step type "${type}" is registered twice`);
        if (typeof (executor as Partial<StepExecutor> | null)?.execute !== 'function') {
          throw new Error(
            `step type "${type}": its executor ${descriptor.executor.name} has no execute method`,
          );
        }
        registered.set(type, { descriptor, executor: executor as StepExecutor });
      }
    }
    return (this.collected = registered);
  }

  get(type: string): StepTypeDescriptor | undefined {
    return this.registered().get(type)?.descriptor;
  }

  /** The registered types, in registration order (the order error messages list them in). */
  types(): string[] {
    return [...this.registered().keys()];
  }

  descriptors(): StepTypeDescriptor[] {
    return [...this.registered().values()].map((r) => r.descriptor);
  }

  /**
   * Attempts of a step that sets no `retry.maxAttempts`; 1 for a type no longer registered, whose
   * steps fail without a retry anyway (no executor).
   */
  defaultMaxAttempts(type: string): number {
    return this.get(type)?.defaultMaxAttempts ?? 1;
  }

  executorFor(type: string): StepExecutor | undefined {
    return this.registered().get(type)?.executor;
  }
}
