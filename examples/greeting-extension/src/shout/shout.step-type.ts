import type { StepTypeDescriptor } from 'workflow-orchestrator';
import { ShoutStepDto } from './shout-step.dto';
import { ShoutStepExecutor } from './shout.step';

/** The `shout` step type: everything the service needs to validate, retry and execute it. */
export const shoutStepType: StepTypeDescriptor = {
  type: 'shout',
  dto: ShoutStepDto,
  // What the DTO cannot say: exactly one of the two fields.
  check(step, add) {
    if ((step.text === undefined) === (step.from === undefined)) {
      add('text', 'give either text or from, not both or neither');
    }
  },
  defaultMaxAttempts: 1,
  executor: ShoutStepExecutor,
};
