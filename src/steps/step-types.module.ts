import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { StepTypeDescriptor } from './step-type';
import { StepTypeRegistration, StepTypeRegistry } from './step-type.registry';

/** The one registry, shared by every register() call and injectable anywhere. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [StepTypeRegistry],
  exports: [StepTypeRegistry],
})
class StepTypeRegistryModule {}

@Module({})
export class StepTypesModule {
  /**
   * Registers step types: provides their executors, with the modules their dependencies come
   * from, and hands the descriptors to the StepTypeRegistry. Any module may import its own
   * register() call (an extension adds its types so); types keep the order of the calls, then of
   * each list.
   */
  static register(descriptors: readonly StepTypeDescriptor[]): DynamicModule {
    for (const { type, executor } of descriptors) {
      // Nest would only say that a provider is undefined, without naming the type.
      if (typeof executor !== 'function') {
        throw new Error(
          `step type "${type}": its executor is ${String(executor)}, not a class ` +
            '(an import cycle can leave it undefined)',
        );
      }
    }
    return {
      module: StepTypesModule,
      imports: [StepTypeRegistryModule, ...new Set(descriptors.flatMap((d) => d.imports ?? []))],
      providers: [
        ...new Set(descriptors.map((d) => d.executor)),
        {
          provide: StepTypeRegistration,
          useFactory: (...executors: unknown[]) =>
            new StepTypeRegistration(
              descriptors.map((descriptor, i) => ({ descriptor, executor: executors[i] })),
            ),
          inject: descriptors.map((d) => d.executor),
        },
      ],
    };
  }
}
