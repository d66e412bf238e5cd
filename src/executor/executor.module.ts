import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExecutorService } from './executor.service';

/**
 * The durable executor. Step types and their executors are registered with StepTypesModule (the
 * built-ins in AppModule); the executor discovers their executors at boot.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [ExecutorService],
  exports: [ExecutorService],
})
export class ExecutorModule {}
