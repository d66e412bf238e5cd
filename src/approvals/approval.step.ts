import { Inject, Injectable } from '@nestjs/common';
import { jsonBytes } from '../common/limits';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { retryPolicyOf, type ApprovalStep } from '../steps/step-definition';
import { StepTypeRegistry } from '../steps/step-type.registry';
import type { StepContext, StepExecutor, StepOutcome } from '../steps/step-executor';
import { enqueueWebhookEvent } from '../queue/outbox';
import { APPROVAL_SIGNAL, ApprovalsRepository, type DecisionSignal } from './approvals.repository';
import { contentAt, isPlainObject, statePatchAt } from './content';

function decisionOf(ctx: StepContext): DecisionSignal | undefined {
  if (ctx.wake !== 'signal' || ctx.signal?.signalType !== APPROVAL_SIGNAL) return undefined;
  const payload = ctx.signal.payload as Partial<DecisionSignal>;
  return typeof payload.approvalRequestId === 'string' && typeof payload.decision === 'string'
    ? (payload as DecisionSignal)
    : undefined;
}

/**
 * The approval step (design §4). First execution: creates the approval request in the transaction
 * that pauses the run. Woken by a decision: approved continues unchanged, edited replaces the state
 * value at contentKey, rejected fails the step and, while the retry policy has attempts left (one per
 * request, counted as rejections of this step in this run), jumps back to `regenerateFrom` with the
 * rejection in the state; a new request is made when the run comes back here.
 */
@Injectable()
export class ApprovalStepExecutor implements StepExecutor {
  constructor(
    private readonly approvals: ApprovalsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly stepTypes: StepTypeRegistry,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as ApprovalStep;
    const decision = decisionOf(ctx);
    return decision ? this.decided(ctx, step, decision) : this.request(ctx, step);
  }

  private async request(ctx: StepContext, step: ApprovalStep): Promise<StepOutcome> {
    const found = contentAt(ctx.state, step.contentKey);
    if (!found.found) {
      return {
        kind: 'fail',
        error: `no value in the run state at contentKey "${step.contentKey}"`,
        retryable: false,
      };
    }
    const refused = await this.limitProblem(ctx.workspaceId, step, found.content);
    if (refused) return { kind: 'fail', error: refused, retryable: false };
    const prompt = step.prompt ?? '';
    return {
      kind: 'pause',
      effects: async (tx) => {
        const request = await this.approvals.create(tx.client, {
          workspaceId: tx.workspaceId,
          runId: tx.runId,
          stepRunId: tx.stepRunId,
          stepName: step.name,
          contentKey: step.contentKey,
          content: found.content,
          prompt,
        });
        tx.event('APPROVAL_REQUESTED', {
          stepName: step.name,
          approvalRequestId: request.id,
          contentKey: step.contentKey,
          prompt,
        });
        await enqueueWebhookEvent(tx.client, {
          workspaceId: tx.workspaceId,
          runId: tx.runId,
          event: 'approval.requested',
          data: {
            approvalRequestId: request.id,
            stepName: step.name,
            contentKey: step.contentKey,
            content: found.content,
            prompt,
          },
        });
      },
    };
  }

  /**
   * Why this request may not be made: its content is over MAX_APPROVAL_CONTENT_BYTES, or the
   * workspace already has MAX_PENDING_APPROVALS_PER_WORKSPACE awaiting a decision. Together they bound
   * the undecided part of the approval-requests list, which the contract answers without pagination.
   * Neither is retried: a larger content or a full queue will not change by trying again at once.
   */
  private async limitProblem(
    workspaceId: string,
    step: ApprovalStep,
    content: Record<string, unknown>,
  ): Promise<string | undefined> {
    const { approvalContentBytes, pendingApprovalsPerWorkspace } = this.config.limits;
    const bytes = jsonBytes(content);
    if (bytes > approvalContentBytes) {
      return (
        `approval content at contentKey "${step.contentKey}" is ${bytes} bytes of JSON; at most ` +
        `${approvalContentBytes} are allowed (MAX_APPROVAL_CONTENT_BYTES)`
      );
    }
    const awaiting = await this.approvals.countAwaitingDecision(workspaceId);
    if (awaiting >= pendingApprovalsPerWorkspace) {
      return (
        `the workspace already has ${awaiting} approval requests awaiting a decision, the most ` +
        `allowed (MAX_PENDING_APPROVALS_PER_WORKSPACE); decide some first`
      );
    }
    return undefined;
  }

  private async decided(
    ctx: StepContext,
    step: ApprovalStep,
    d: DecisionSignal,
  ): Promise<StepOutcome> {
    const base = {
      decision: d.decision,
      approvalRequestId: d.approvalRequestId,
      decidedBy: d.decidedBy,
      comment: d.comment,
    };
    switch (d.decision) {
      case 'approved': {
        const found = contentAt(ctx.state, step.contentKey);
        return {
          kind: 'complete',
          output: { ...base, content: found.found ? found.content : null },
        };
      }
      case 'edited': {
        const edited = d.editedContent ?? {};
        const found = contentAt(ctx.state, step.contentKey);
        // Content that was wrapped as {value} for review goes back unwrapped.
        const unwrap =
          found.found &&
          found.wrapped &&
          isPlainObject(edited) &&
          Object.keys(edited).length === 1 &&
          'value' in edited;
        return {
          kind: 'complete',
          output: { ...base, content: edited },
          statePatch: statePatchAt(ctx.state, step.contentKey, unwrap ? edited.value : edited),
        };
      }
      case 'rejected': {
        const why = `rejected by ${d.decidedBy}${d.comment ? `: ${d.comment}` : ''}`;
        const rejections = await this.approvals.countRejections(ctx.runId, step.name);
        const { maxAttempts } = retryPolicyOf(step, this.stepTypes.defaultMaxAttempts(step.type));
        if (rejections >= maxAttempts) {
          return { kind: 'fail', error: why, retryable: false };
        }
        let target = ctx.stepIndex - 1;
        if (step.regenerateFrom !== undefined) {
          target = ctx.steps.findIndex((s) => s.name === step.regenerateFrom);
        }
        return {
          kind: 'fail',
          error: why,
          retryable: true,
          jumpTo: Math.max(0, target),
          statePatch: { rejection: { decision: 'rejected', comment: d.comment } },
        };
      }
    }
  }
}
