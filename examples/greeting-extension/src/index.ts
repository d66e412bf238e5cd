import { Module } from '@nestjs/common';
import { StepTypesModule } from 'workflow-orchestrator';
import { GreetHandler } from './greet.handler';
import { shoutStepType } from './shout/shout.step-type';

/**
 * The service loads the default export of each module named in EXTENSION_MODULES: here a task
 * handler (`greet`) and a step type (`shout`), registered beside the built-in ones.
 */
@Module({
  imports: [StepTypesModule.register([shoutStepType])],
  providers: [GreetHandler],
})
export default class GreetingModule {}
