import { Injectable } from '@nestjs/common';
import { retryPolicyOf, type ApprovalStep } from '../definitions/steps/step-types';
import {
  StepExecutorFor,
  type StepContext,
  type StepExecutor,
  type StepOutcome,
} from '../executor/step-executor';
import { enqueueWebhookEvent } from '../webhooks/outbox';
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
@StepExecutorFor('approval')
export class ApprovalStepExecutor implements StepExecutor {
  constructor(private readonly approvals: ApprovalsRepository) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as ApprovalStep;
    const decision = decisionOf(ctx);
    return decision ? this.decided(ctx, step, decision) : this.request(ctx, step);
  }

  private request(ctx: StepContext, step: ApprovalStep): StepOutcome {
    const found = contentAt(ctx.state, step.contentKey);
    if (!found.found) {
      return {
        kind: 'fail',
        error: `no value in the run state at contentKey "${step.contentKey}"`,
        retryable: false,
      };
    }
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
        if (rejections >= retryPolicyOf(step).maxAttempts) {
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
