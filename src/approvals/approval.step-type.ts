import { DEFAULT_APPROVAL_MAX_TIMEOUT_MS } from '../config/app-config';
import type { StepTypeDescriptor } from '../steps/step-type';
import { ApprovalStepDto } from './approval-step.dto';
import { ApprovalStepExecutor } from './approval.step';
import { ApprovalsModule } from './approvals.module';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `approval`: pauses the run on an approval request; a rejection may return to `regenerateFrom`. Its
 * `timeoutMs` is the request's timeout (a due time of the parked step, kept in PostgreSQL), so the
 * executor does not abort the step at that time.
 */
export const approvalStepType: StepTypeDescriptor = {
  type: 'approval',
  dto: ApprovalStepDto,
  check(step, add, config) {
    const max = config?.limits.approvalMaxTimeoutMs ?? DEFAULT_APPROVAL_MAX_TIMEOUT_MS;
    const tooLong = (value: unknown) => typeof value === 'number' && value > max;
    const bound = `must not be greater than ${max} (APPROVAL_MAX_TIMEOUT_MS)`;
    const hasTimeout = step.timeoutMs !== undefined;
    if (tooLong(step.timeoutMs)) add('timeoutMs', bound);
    const required = step.requiredApprovals;
    const quorum = typeof required === 'number' && Number.isInteger(required) ? required : 1;
    if (Array.isArray(step.assignees) && quorum > step.assignees.length) {
      add(
        'requiredApprovals',
        `must not be greater than the number of assignees (${step.assignees.length})`,
      );
    }
    if (step.onTimeout !== undefined && !hasTimeout) {
      add('onTimeout', 'needs timeoutMs: it says what happens when the request times out');
    }
    const escalation = step.escalateTo;
    if (isPlainObject(escalation)) {
      if (!hasTimeout) {
        add('escalateTo', 'needs timeoutMs: the request escalates at its first timeout');
      }
      if (tooLong(escalation.timeoutMs)) add('escalateTo.timeoutMs', bound);
      if (Array.isArray(escalation.assignees) && quorum > escalation.assignees.length) {
        add(
          'escalateTo.assignees',
          `must name at least requiredApprovals (${quorum}) assignees, or the escalated request ` +
            'could not be approved by them',
        );
      }
    }
  },
  jumpFields: ['regenerateFrom'],
  defaultMaxAttempts: 1,
  ownsTimeout: true,
  executor: ApprovalStepExecutor,
  imports: [ApprovalsModule],
};
