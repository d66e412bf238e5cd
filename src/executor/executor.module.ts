import { Module } from '@nestjs/common';
import { ExecutorService } from './executor.service';

/**
 * The durable executor. Step types and their executors are registered with StepTypesModule (the
 * built-ins in AppModule); the executor finds them in the StepTypeRegistry.
 */
@Module({
  providers: [ExecutorService],
  exports: [ExecutorService],
})
export class ExecutorModule {}
