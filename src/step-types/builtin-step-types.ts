import { approvalStepType } from '../approvals/approval.step-type';
import { llmStepType } from '../llm/llm.step-type';
import type { StepTypeDescriptor } from '../steps/step-type';
import { mapStepType } from './map/map.step-type';
import { conditionStepType } from './condition/condition.step-type';
import { externalEventStepType } from './external-event/external-event.step-type';
import { taskStepType } from './task/task.step-type';
import { waitStepType } from './wait/wait.step-type';
import { workflowStepType } from './workflow/workflow.step-type';

/**
 * The step types the service ships, registered by AppModule. Their order is the order the API lists
 * them in (`must be one of task, wait, ...`).
 */
export const BUILTIN_STEP_TYPES: readonly StepTypeDescriptor[] = [
  taskStepType,
  waitStepType,
  conditionStepType,
  externalEventStepType,
  llmStepType,
  approvalStepType,
  workflowStepType,
  mapStepType,
];
