import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExpressionsModule } from '../expressions/expressions.module';
import { HandlersModule } from '../handlers/handlers.module';
import { ExecutorService } from './executor.service';
import { ConditionStepExecutor } from '../step-types/condition/condition.step';
import { ExternalEventStepExecutor } from '../step-types/external-event/external-event.step';
import { TaskStepExecutor } from '../step-types/task/task.step';
import { WaitStepExecutor } from '../step-types/wait/wait.step';

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
