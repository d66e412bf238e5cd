import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExpressionsModule } from '../expressions/expressions.module';
import { HandlersModule } from '../handlers/handlers.module';
import { ExecutorService } from './executor.service';
import { ConditionStepExecutor } from './steps/condition.step';
import { ExternalEventStepExecutor } from './steps/external-event.step';
import { TaskStepExecutor } from './steps/task.step';
import { WaitStepExecutor } from './steps/wait.step';

/**
 * The durable executor. Step types are providers marked with @StepExecutorFor; other modules (LLM,
 * approvals) add theirs the same way and the executor discovers them at boot.
 */
@Module({
  imports: [DiscoveryModule, HandlersModule, ExpressionsModule],
  providers: [
    ExecutorService,
    TaskStepExecutor,
    WaitStepExecutor,
    ConditionStepExecutor,
    ExternalEventStepExecutor,
  ],
  exports: [ExecutorService],
})
export class ExecutorModule {}
