import type { StepTypeDescriptor } from '../steps/step-type';
import { ApprovalStepDto } from './approval-step.dto';
import { ApprovalStepExecutor } from './approval.step';
import { ApprovalsModule } from './approvals.module';

/** `approval`: pauses the run on an approval request; a rejection may return to `regenerateFrom`. */
export const approvalStepType: StepTypeDescriptor = {
  type: 'approval',
  dto: ApprovalStepDto,
  jumpFields: ['regenerateFrom'],
  defaultMaxAttempts: 1,
  executor: ApprovalStepExecutor,
  imports: [ApprovalsModule],
};
