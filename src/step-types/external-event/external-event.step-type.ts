import type { StepTypeDescriptor } from '../../steps/step-type';
import { ExternalEventStepDto } from './external-event-step.dto';
import { ExternalEventStepExecutor } from './external-event.step';

/** `external_event`: parks the run until a signal arrives; `timeoutMs` is its due time. */
export const externalEventStepType: StepTypeDescriptor = {
  type: 'external_event',
  dto: ExternalEventStepDto,
  defaultMaxAttempts: 1,
  ownsTimeout: true,
  executor: ExternalEventStepExecutor,
};
