import { Inject, Injectable } from '@nestjs/common';
import { jsonBytes } from '../common/limits';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { retryPolicyOf, type ApprovalStep } from '../steps/step-definition';
import { StepTypeRegistry } from '../steps/step-type.registry';
import type {
  StepContext,
  StepEffects,
  StepExecutor,
  StepOutcome,
  StepTransaction,
} from '../steps/step-executor';
import { enqueueWebhookEvent } from '../queue/outbox';
import {
  APPROVAL_SIGNAL,
  approvers,
  ApprovalsRepository,
  TIMEOUT_DECIDER,
  type ApprovalRow,
  type DecisionSignal,
  type RequestPolicy,
} from './approvals.repository';
import { contentAt, isPlainObject, statePatchAt } from './content';

function decisionOf(ctx: StepContext): DecisionSignal | undefined {
  if (ctx.wake !== 'signal' || ctx.signal?.signalType !== APPROVAL_SIGNAL) return undefined;
  const payload = ctx.signal.payload as Partial<DecisionSignal>;
  return typeof payload.approvalRequestId === 'string' && typeof payload.decision === 'string'
    ? (payload as DecisionSignal)
    : undefined;
}

/** Whether the step sets any part of a policy (its events and webhooks then carry the policy). */
function hasPolicy(step: ApprovalStep): boolean {
  return (
    step.assignees !== undefined ||
    step.requiredApprovals !== undefined ||
    step.timeoutMs !== undefined
  );
}

/** The policy of a new request of `step`, its expiry counted from `now`. */
export function requestPolicy(step: ApprovalStep, now: number): RequestPolicy {
  const timed = step.timeoutMs !== undefined;
  return {
    assignees: step.assignees ?? [],
    requiredApprovals: step.requiredApprovals ?? 1,
    expiresAt: timed ? new Date(now + step.timeoutMs!) : null,
    onTimeout: timed ? (step.onTimeout ?? 'reject') : null,
  };
}

/** What a timer that woke `request` does: escalate it (its first timeout, with `escalateTo`), or expire it. */
export function timeoutAction(
  step: ApprovalStep,
  request: Pick<ApprovalRow, 'escalated_at'>,
): 'escalate' | 'expire' {
  return step.escalateTo !== undefined && request.escalated_at === null ? 'escalate' : 'expire';
}

/**
 * The approval step (design §4, §11). First execution: creates the approval request (with its
 * assignees, quorum and expiry) in the transaction that pauses the run, the step parked on its timer
 * when it has a timeout. Woken by a decision: approved continues unchanged, edited replaces the state
 * value at contentKey, rejected fails the step and, while the retry policy has attempts left (one per
 * request, counted as rejections of this step in this run), jumps back to `regenerateFrom` with the
 * rejection in the state; a new request is made when the run comes back here. Woken by its timer: the
 * first timeout of a request with `escalateTo` escalates it (new assignees, the second timeout) and
 * pauses again; otherwise the request expires and `onTimeout` applies: `reject` as a rejection,
 * `approve` as an approval, `fail` fails the step without retry.
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
    if (decision) return this.decided(ctx, step, decision);
    if (ctx.wake === 'timer') return this.timedOut(ctx, step);
    return this.request(ctx, step);
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
    const policy = requestPolicy(step, Date.now());
    // Only a step with a policy says so in its event and webhook: without one they stay as they were.
    const stated = hasPolicy(step)
      ? {
          assignees: policy.assignees,
          requiredApprovals: policy.requiredApprovals,
          expiresAt: policy.expiresAt?.toISOString() ?? null,
        }
      : {};
    return {
      kind: 'pause',
      dueAt: policy.expiresAt,
      effects: async (tx) => {
        const request = await this.approvals.create(tx.client, {
          workspaceId: tx.workspaceId,
          runId: tx.runId,
          stepRunId: tx.stepRunId,
          stepName: step.name,
          contentKey: step.contentKey,
          content: found.content,
          prompt,
          ...policy,
        });
        tx.event('APPROVAL_REQUESTED', {
          stepName: step.name,
          approvalRequestId: request.id,
          contentKey: step.contentKey,
          prompt,
          ...stated,
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
            ...stated,
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
      approvals: d.approvals ?? [],
    };
    switch (d.decision) {
      case 'approved':
        return this.approve(ctx, step, base);
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
      case 'rejected':
        return this.reject(ctx, step, {
          why: `rejected by ${d.decidedBy}${d.comment ? `: ${d.comment}` : ''}`,
          rejection: { decision: 'rejected', comment: d.comment },
          // The decision's transaction recorded the rejection already.
          uncounted: 0,
        });
    }
  }

  /** The step completes with the content as it is under review. */
  private approve(
    ctx: StepContext,
    step: ApprovalStep,
    base: Record<string, unknown>,
    effects?: StepEffects,
  ): StepOutcome {
    const found = contentAt(ctx.state, step.contentKey);
    return {
      kind: 'complete',
      output: { ...base, content: found.found ? found.content : null },
      effects,
    };
  }

  /**
   * A rejection fails the step; while rejections of this step in this run (`uncounted` of them not
   * recorded yet) stay below its retry.maxAttempts, the run goes back to `regenerateFrom`.
   */
  private async reject(
    ctx: StepContext,
    step: ApprovalStep,
    r: {
      why: string;
      rejection: Record<string, unknown>;
      uncounted: number;
      effects?: StepEffects;
    },
  ): Promise<StepOutcome> {
    const rejections = (await this.approvals.countRejections(ctx.runId, step.name)) + r.uncounted;
    const { maxAttempts } = retryPolicyOf(step, this.stepTypes.defaultMaxAttempts(step.type));
    if (rejections >= maxAttempts) {
      return { kind: 'fail', error: r.why, retryable: false, effects: r.effects };
    }
    let target = ctx.stepIndex - 1;
    if (step.regenerateFrom !== undefined) {
      target = ctx.steps.findIndex((s) => s.name === step.regenerateFrom);
    }
    return {
      kind: 'fail',
      error: r.why,
      retryable: true,
      jumpTo: Math.max(0, target),
      statePatch: { rejection: r.rejection },
      effects: r.effects,
    };
  }

  /** The step's timer: the request's timeout came, undecided (a decision would have woken it first). */
  private async timedOut(ctx: StepContext, step: ApprovalStep): Promise<StepOutcome> {
    const request = await this.approvals.openRequestOf(ctx.runId, step.name, ctx.stepRunId);
    if (!request) {
      return {
        kind: 'fail',
        error: 'the approval request of this step was not found when its timeout came',
        retryable: false,
      };
    }
    return timeoutAction(step, request) === 'escalate'
      ? this.escalate(step, request)
      : this.expire(ctx, step, request);
  }

  /** The first timeout with `escalateTo`: new assignees and the second timeout, the run PAUSED again. */
  private escalate(step: ApprovalStep, request: ApprovalRow): StepOutcome {
    const { assignees, timeoutMs } = step.escalateTo!;
    const expiresAt = timeoutMs !== undefined ? new Date(Date.now() + timeoutMs) : null;
    return {
      kind: 'pause',
      dueAt: expiresAt,
      effects: async (tx) => {
        const escalated = await this.approvals.escalate(
          tx.client,
          request.id,
          assignees,
          expiresAt,
        );
        const escalatedAt = escalated.escalated_at!.toISOString();
        tx.event('APPROVAL_ESCALATED', {
          stepName: step.name,
          approvalRequestId: request.id,
          assignees,
          escalatedFrom: request.assignees,
          expiresAt: expiresAt?.toISOString() ?? null,
        });
        await enqueueWebhookEvent(tx.client, {
          workspaceId: tx.workspaceId,
          runId: tx.runId,
          event: 'approval.escalated',
          data: {
            approvalRequestId: request.id,
            stepName: step.name,
            assignees,
            escalatedFrom: request.assignees,
            escalatedAt,
            expiresAt: expiresAt?.toISOString() ?? null,
          },
        });
      },
    };
  }

  /**
   * The last timeout: the request expires (APPROVAL_EXPIRED, approval.expired) and onTimeout applies.
   * `reject` and `approve` decide the request as TIMEOUT_DECIDER (APPROVAL_DECIDED, approval.decided)
   * and continue as that decision would; `fail` leaves it undecided and fails the step without retry.
   */
  private async expire(
    ctx: StepContext,
    step: ApprovalStep,
    request: ApprovalRow,
  ): Promise<StepOutcome> {
    const onTimeout = request.on_timeout ?? step.onTimeout ?? 'reject';
    const decision =
      onTimeout === 'reject' ? 'rejected' : onTimeout === 'approve' ? 'approved' : null;
    const approved = approvers(request.approvals).size;
    const progress = `${approved} of ${request.required_approvals} approvals`;
    const effects: StepEffects = async (tx) => {
      const expired = await this.approvals.expire(tx.client, request.id, decision);
      const expiredAt = expired.expired_at!.toISOString();
      tx.event('APPROVAL_EXPIRED', {
        stepName: step.name,
        approvalRequestId: request.id,
        onTimeout,
        approvals: approved,
        requiredApprovals: request.required_approvals,
        expiresAt: request.expires_at?.toISOString() ?? expiredAt,
      });
      await enqueueWebhookEvent(tx.client, {
        workspaceId: tx.workspaceId,
        runId: tx.runId,
        event: 'approval.expired',
        data: {
          approvalRequestId: request.id,
          stepName: step.name,
          onTimeout,
          assignees: request.assignees,
          approvals: request.approvals,
          requiredApprovals: request.required_approvals,
          expiresAt: request.expires_at?.toISOString() ?? expiredAt,
          expiredAt,
        },
      });
      if (decision !== null) await this.recordTimeoutDecision(tx, step, expired, decision);
    };
    const base = {
      decision,
      approvalRequestId: request.id,
      decidedBy: TIMEOUT_DECIDER,
      comment: null,
      approvals: request.approvals,
      expired: true,
    };
    switch (onTimeout) {
      case 'approve':
        return this.approve(ctx, step, base, effects);
      case 'reject':
        return this.reject(ctx, step, {
          why: `the approval request expired without a decision (${progress}; onTimeout: reject)`,
          rejection: { decision: 'rejected', comment: null, expired: true },
          uncounted: 1,
          effects,
        });
      case 'fail':
        return {
          kind: 'fail',
          error: `the approval request expired without a decision (${progress}; onTimeout: fail)`,
          retryable: false,
          effects,
        };
    }
  }

  /** The decision a timeout makes, recorded as a reviewer's would be. */
  private async recordTimeoutDecision(
    tx: StepTransaction,
    step: ApprovalStep,
    request: ApprovalRow,
    decision: 'approved' | 'rejected',
  ): Promise<void> {
    tx.event('APPROVAL_DECIDED', {
      stepName: step.name,
      approvalRequestId: request.id,
      decision,
      decidedBy: TIMEOUT_DECIDER,
      comment: null,
    });
    await enqueueWebhookEvent(tx.client, {
      workspaceId: tx.workspaceId,
      runId: tx.runId,
      event: 'approval.decided',
      data: {
        approvalRequestId: request.id,
        stepName: step.name,
        decision,
        decidedBy: TIMEOUT_DECIDER,
        decidedAt: request.decided_at!.toISOString(),
      },
    });
  }
}
