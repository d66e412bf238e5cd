import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { TASK_HANDLER_NAME, type TaskHandlerImpl } from './task-handler';

/** Every provider marked with @TaskHandler, by name, found once at boot. */
@Injectable()
export class TaskHandlerRegistry implements OnModuleInit {
  private readonly logger = new Logger(TaskHandlerRegistry.name);
  private readonly handlers = new Map<string, TaskHandlerImpl>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const name = this.reflector.get<string | undefined>(TASK_HANDLER_NAME, metatype);
      if (!name) continue;
      if (this.handlers.has(name)) throw new Error(`task handler "${name}" is registered twice`);
      this.handlers.set(name, instance as TaskHandlerImpl);
    }
    this.logger.log(`task handlers: ${[...this.handlers.keys()].sort().join(', ')}`);
  }

  get(name: string): TaskHandlerImpl | undefined {
    return this.handlers.get(name);
  }

  names(): string[] {
    return [...this.handlers.keys()];
  }
}
