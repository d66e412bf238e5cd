import type { StepTypeDescriptor } from '../../steps/step-type';
import { WaitStepDto } from './wait-step.dto';
import { WaitStepExecutor } from './wait.step';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** `wait`: parks the run until a due time (`durationMs` or `until`), or until resumed. */
export const waitStepType: StepTypeDescriptor = {
  type: 'wait',
  dto: WaitStepDto,
  check(step, add) {
    if (step.durationMs !== undefined && step.until !== undefined) {
      add('until', 'use either durationMs or until, not both');
    }
    const until = step.until;
    if (typeof until === 'string' && !until.includes('{{')) {
      if (!ISO_TIMESTAMP.test(until) || Number.isNaN(Date.parse(until))) {
        add('until', 'must be an ISO 8601 timestamp or a {{placeholder}}');
      }
    }
  },
  defaultMaxAttempts: 1,
  executor: WaitStepExecutor,
};
