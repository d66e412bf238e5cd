import { Inject, Injectable } from '@nestjs/common';
import type { KeyAuth } from '../common/auth';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { jsonWithin } from '../common/limits';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { ApprovalsRepository, type ApprovalRow } from './approvals.repository';
import type {
  ApprovalDecisionDto,
  ApprovalRequestDto,
  DecideApprovalDto,
  ListApprovalRequestsQueryDto,
} from './dto/approval.dto';

function toDto(row: ApprovalRow): ApprovalRequestDto {
  return {
    id: row.id,
    workflowRunId: row.run_id,
    stepRunId: row.step_run_id,
    stepName: row.step_name,
    contentKey: row.content_key,
    content: row.content,
    prompt: row.prompt,
    decision: row.decision,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at?.toISOString() ?? null,
    comment: row.comment,
    editedContent: row.edited_content,
    createdAt: row.created_at.toISOString(),
    assignees: row.assignees,
    requiredApprovals: row.required_approvals,
    approvals: row.approvals,
    expiresAt: row.expires_at?.toISOString() ?? null,
    onTimeout: row.on_timeout,
    escalatedAt: row.escalated_at?.toISOString() ?? null,
    escalatedFrom: row.escalated_from,
    expiredAt: row.expired_at?.toISOString() ?? null,
  };
}

@Injectable()
export class ApprovalsService {
  constructor(
    private readonly approvals: ApprovalsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The newest requests matching the filter, at most APPROVAL_LIST_MAX_ITEMS of them: the list has no
   * pagination in the contract, and decided requests grow with the runs made. `next` is the cursor
   * (`before`) of the following part when the answer was cut.
   */
  async list(
    workspaceId: string,
    q: ListApprovalRequestsQueryDto,
  ): Promise<{ items: ApprovalRequestDto[]; next: string | null }> {
    const pending = q.pending === undefined ? undefined : q.pending === 'true';
    const order = q.order ?? 'newest';
    // Each order continues with its own cursor, so that a link of one order is never read in the other.
    if (order === 'newest' && q.after !== undefined) {
      throw ValidationError.field('after', 'after continues order=oldest; use before with newest');
    }
    if (order === 'oldest' && q.before !== undefined) {
      throw ValidationError.field('before', 'before continues order=newest; use after with oldest');
    }
    const cursorField = order === 'newest' ? 'before' : 'after';
    const max = this.config.limits.approvalListMaxItems;
    const rows = await this.approvals.list(
      workspaceId,
      pending,
      max + 1,
      order,
      q[cursorField],
      q.assignee,
    );
    if (rows === null) {
      throw ValidationError.field(
        cursorField,
        `${cursorField} must be the id of an approval request`,
      );
    }
    const items = rows.slice(0, max).map(toDto);
    return { items, next: rows.length > max ? items[items.length - 1].id : null };
  }

  async get(workspaceId: string, id: string): Promise<ApprovalRequestDto> {
    const row = await this.approvals.get(workspaceId, id);
    if (!row) throw new NotFoundError('approval request');
    return toDto(row);
  }

  async count(workspaceId: string): Promise<{ pending: number }> {
    return { pending: await this.approvals.countPending(workspaceId) };
  }

  /**
   * `decidedBy`: through a console session, the session's reviewer name (design §12), whatever the
   * body says; with x-api-key, the body's, by default `api-key:<calling key id>` (design §4). With a
   * quorum, an approval short of it answers the request still undecided (decision null) with the
   * approvals so far; the same decider approving twice is 409.
   */
  async decide(caller: KeyAuth, id: string, dto: DecideApprovalDto): Promise<ApprovalDecisionDto> {
    const workspaceId = caller.workspaceId;
    if (dto.editedContent !== undefined) {
      const max = this.config.limits.approvalContentBytes;
      jsonWithin(dto.editedContent, max, 'editedContent', 'MAX_APPROVAL_CONTENT_BYTES');
    }
    const decidedBy =
      caller.via === 'session' && caller.reviewerName !== undefined
        ? caller.reviewerName
        : (dto.decidedBy ?? `api-key:${caller.keyId}`);
    const result = await this.approvals.decide(workspaceId, id, {
      decision: dto.decision,
      decidedBy,
      comment: dto.comment ?? null,
      editedContent: dto.editedContent ?? null,
    });
    if (!result.ok) {
      switch (result.reason) {
        case 'not-found':
          throw new NotFoundError('approval request');
        case 'already-decided':
          throw new ConflictError(`approval request was already decided (${result.decision})`);
        case 'run-not-paused':
          throw new ConflictError(
            `run is ${result.status}; the approval request can no longer be decided`,
          );
        case 'timing-out':
          throw new ConflictError(
            'the approval request reached its timeout and is being escalated or expired; read it ' +
              'again before deciding',
          );
        case 'already-approved':
          throw new ConflictError(
            `${decidedBy} has already approved this request (${result.approvals} of ` +
              `${result.required} approvals); another decider must approve it`,
          );
        case 'edit-needs-single-approver':
          throw new ConflictError(
            `this request needs ${result.required} approvals, so it cannot be edited: approve it ` +
              'as it is, or reject it with a comment',
          );
      }
    }
    const r = result.request;
    return {
      id: r.id,
      workflowRunId: r.run_id,
      stepRunId: r.step_run_id,
      stepName: r.step_name,
      decision: r.decision,
      decidedBy: r.decided_by,
      decidedAt: r.decided_at?.toISOString() ?? null,
      createdAt: r.created_at.toISOString(),
      requiredApprovals: r.required_approvals,
      approvals: r.approvals,
    };
  }
}
