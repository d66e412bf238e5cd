import { QueueModule } from '../../queue/queue.module';
import type { StepTypeDescriptor } from '../../steps/step-type';
import { WorkflowStepDto } from './workflow-step.dto';
import { WorkflowStepExecutor } from './workflow.step';

/**
 * `workflow`: starts a child run of another definition and, unless `waitForCompletion` is false, waits
 * for it durably and takes its output. The definition's existence and cycles are checked when the
 * definition is created (DefinitionsService), since they need the database.
 */
export const workflowStepType: StepTypeDescriptor = {
  type: 'workflow',
  dto: WorkflowStepDto,
  check(step, add) {
    const byId = step.definitionId !== undefined;
    const byName = step.definitionName !== undefined;
    if (byId === byName) {
      add('definitionId', 'give either definitionId, or definitionName with version');
    } else if (byName && step.version === undefined) {
      add('version', 'is required with definitionName');
    } else if (byId && step.version !== undefined) {
      add('version', 'goes with definitionName; definitionId already names one version');
    }
    if (step.timeoutMs !== undefined) {
      add(
        'timeoutMs',
        'is not supported on workflow steps: bound the child run with its own steps, or cancel it',
      );
    }
  },
  defaultMaxAttempts: 1,
  executor: WorkflowStepExecutor,
  imports: [QueueModule],
};
