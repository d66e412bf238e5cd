import { Injectable } from '@nestjs/common';
import { Database, type Queryable } from '../common/database';
import { RunQueue } from '../queue/run-queue';
import type { RunStatus } from '../queue/statuses';
import { insertEvents } from '../queue/run-events';
import { enqueueWebhookEvent } from '../queue/outbox';
import type { OnTimeout } from './approval-step.dto';
import type { Decision } from './dto/approval.dto';

/**
 * One reviewer's decision on a request, as its `approvals` list keeps it: every decision submitted,
 * the final one included (a timeout's decision is not a reviewer's: `expired_at` tells it).
 */
export interface ApprovalVote {
  decidedBy: string;
  decision: Decision;
  /** ISO 8601 UTC with milliseconds, the database's clock. */
  decidedAt: string;
  comment: string | null;
}

export interface ApprovalRow {
  id: string;
  workspace_id: string;
  run_id: string;
  step_run_id: string;
  step_name: string;
  content_key: string;
  content: Record<string, unknown>;
  prompt: string;
  decision: Decision | null;
  decided_by: string | null;
  decided_at: Date | null;
  comment: string | null;
  edited_content: Record<string, unknown> | null;
  created_at: Date;
  assignees: string[];
  required_approvals: number;
  approvals: ApprovalVote[];
  expires_at: Date | null;
  on_timeout: OnTimeout | null;
  escalated_at: Date | null;
  escalated_from: string[] | null;
  expired_at: Date | null;
}

/** `decidedBy` of the decision a timeout makes (`onTimeout` reject or approve). */
export const TIMEOUT_DECIDER = 'system:timeout';

/** The policy a request is made with (the approval step's fields, its expiry computed). */
export interface RequestPolicy {
  assignees: string[];
  requiredApprovals: number;
  /** Null without a timeout. */
  expiresAt: Date | null;
  /** Null without a timeout. */
  onTimeout: OnTimeout | null;
}

/** The signal type under which a decision wakes the parked approval step. */
export const APPROVAL_SIGNAL = 'approval.decided';

/** What the decision hands to the approval step (the `payload` of its signal). */
export interface DecisionSignal {
  approvalRequestId: string;
  decision: Decision;
  decidedBy: string;
  comment: string | null;
  editedContent: Record<string, unknown> | null;
  /** Every decision on the request, this one last (absent in signals of older versions). */
  approvals?: ApprovalVote[];
}

export type DecideResult =
  /** `final`: the request is decided (and its run woken); false for an approval short of the quorum. */
  | { ok: true; request: ApprovalRow; final: boolean }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'already-decided'; decision: Decision }
  | { ok: false; reason: 'run-not-paused'; status: RunStatus }
  /** The executor holds the parked step to apply the request's timeout (expiry or escalation). */
  | { ok: false; reason: 'timing-out' }
  | { ok: false; reason: 'already-approved'; approvals: number; required: number }
  | { ok: false; reason: 'edit-needs-single-approver'; required: number };

const COLUMNS = `id, workspace_id, run_id, step_run_id, step_name, content_key, content, prompt,
  decision, decided_by, decided_at, comment, edited_content, created_at, assignees,
  required_approvals, approvals, expires_at, on_timeout, escalated_at, escalated_from, expired_at`;

/** The columns of `approval_requests a`, for statements that join it. */
const A_COLUMNS = COLUMNS.split(',')
  .map((c) => `a.${c.trim()}`)
  .join(', ');

/** A vote appended to `approvals` in SQL: the time is the database's, like `decided_at`. */
const VOTE = (
  by: string,
  decision: string,
  comment: string,
) => `jsonb_build_array(jsonb_build_object(
  'decidedBy', ${by}::text, 'decision', ${decision}::text,
  'decidedAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'comment', ${comment}::text))`;

/**
 * The requests of one assignee, as `list` answers them (the same filters, orders and cursors): read
 * from `approval_assignees` in the list's order (its pending partial index for `pending=true`), each
 * row joined to its request by primary key, so that an assignee's page costs the same however many
 * requests the workspace holds. `cursor` must be a request of the workspace (checked by the caller).
 */
export function assigneeListStatement(
  workspaceId: string,
  assignee: string,
  pending: boolean | undefined,
  limit: number,
  order: 'newest' | 'oldest',
  cursor?: string,
): { text: string; values: unknown[] } {
  const filter = pending === undefined ? '' : pending ? 'AND NOT x.decided' : 'AND x.decided';
  const direction = order === 'newest' ? 'DESC' : 'ASC';
  const values: unknown[] = [workspaceId, assignee, limit];
  let after = '';
  if (cursor !== undefined) {
    values.push(cursor);
    // Compared in SQL, as in `list`: microseconds matter between requests of one millisecond.
    after = `AND (x.created_at, x.request_id) ${order === 'newest' ? '<' : '>'}
      (SELECT created_at, id FROM approval_requests WHERE id = $4)`;
  }
  return {
    text: `SELECT ${A_COLUMNS} FROM approval_assignees x
      JOIN approval_requests a ON a.id = x.request_id
      WHERE x.workspace_id = $1 AND x.assignee = $2 ${filter} ${after}
      ORDER BY x.created_at ${direction}, x.request_id ${direction} LIMIT $3`,
    values,
  };
}

/** The distinct deciders who approved, among `votes`. */
export function approvers(votes: readonly ApprovalVote[]): Set<string> {
  return new Set(votes.filter((v) => v.decision === 'approved').map((v) => v.decidedBy));
}

/**
 * Approval requests. The request is created by the approval step inside the transaction that pauses
 * the run; a decision locks the run row first (as the executor and every run transition do), then the
 * request, so concurrent decisions, a cancel and the executor serialise on the run and never deadlock.
 */
@Injectable()
export class ApprovalsRepository {
  constructor(
    private readonly db: Database,
    private readonly queue: RunQueue,
  ) {}

  /**
   * Inserts a request, and a row per assignee for the list's filter, in the caller's transaction (the
   * approval step's outcome).
   */
  async create(
    client: Queryable,
    r: {
      workspaceId: string;
      runId: string;
      stepRunId: string;
      stepName: string;
      contentKey: string;
      content: Record<string, unknown>;
      prompt: string;
    } & RequestPolicy,
  ): Promise<ApprovalRow> {
    const res = await client.query(
      `WITH request AS (
         INSERT INTO approval_requests (workspace_id, run_id, step_run_id, step_name, content_key,
                                        content, prompt, assignees, required_approvals, expires_at,
                                        on_timeout)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $10, $11) RETURNING ${COLUMNS}
       ), assigned AS (
         INSERT INTO approval_assignees (request_id, workspace_id, assignee, created_at)
         SELECT request.id, request.workspace_id, a.name, request.created_at
         FROM request, unnest(request.assignees) AS a(name)
       )
       SELECT * FROM request`,
      [
        r.workspaceId,
        r.runId,
        r.stepRunId,
        r.stepName,
        r.contentKey,
        JSON.stringify(r.content),
        r.prompt,
        r.assignees,
        r.requiredApprovals,
        r.expiresAt,
        r.onTimeout,
      ],
    );
    return res.rows[0] as ApprovalRow;
  }

  /**
   * The undecided request of an approval step's run (the step run's newest), which its timer woke:
   * read through `approval_requests_run_step_idx`.
   */
  async openRequestOf(
    runId: string,
    stepName: string,
    stepRunId: string,
  ): Promise<ApprovalRow | undefined> {
    const res = await this.db.query<ApprovalRow>(
      `SELECT ${COLUMNS} FROM approval_requests
       WHERE run_id = $1 AND step_name = $2 AND step_run_id = $3 AND decision IS NULL
       ORDER BY created_at DESC LIMIT 1`,
      [runId, stepName, stepRunId],
    );
    return res.rows[0];
  }

  /**
   * The first timeout of a request with `escalateTo`, in the transaction of the step's outcome (which
   * holds the run): the escalated assignees replace the current ones (kept in `escalated_from`, and in
   * the list's filter rows), with the second expiry (null: none). Returns the request as it now is.
   */
  async escalate(
    client: Queryable,
    id: string,
    assignees: string[],
    expiresAt: Date | null,
  ): Promise<ApprovalRow> {
    const res = await client.query<ApprovalRow>(
      `WITH escalated AS (
         UPDATE approval_requests
         SET escalated_from = assignees, assignees = $2::text[], escalated_at = now(),
             expires_at = $3
         WHERE id = $1 AND decision IS NULL
         RETURNING ${COLUMNS}
       ), unassigned AS (
         DELETE FROM approval_assignees WHERE request_id = $1
       )
       SELECT * FROM escalated`,
      [id, assignees, expiresAt],
    );
    const request = res.rows[0];
    // The run is held by the step's executor, so no decision can have come in between.
    if (!request) throw new Error(`approval request ${id} was decided while it escalated`);
    // A separate statement: the CTEs of one statement see the same snapshot, so an insert beside the
    // delete of the same keys would conflict with the rows being deleted. The request's created_at
    // is copied in SQL: read back into JavaScript it would lose its microseconds, and the list's
    // cursors compare it with the request's own.
    await client.query(
      `INSERT INTO approval_assignees (request_id, workspace_id, assignee, created_at)
       SELECT r.id, r.workspace_id, a.name, r.created_at
       FROM approval_requests r, unnest($2::text[]) AS a(name)
       WHERE r.id = $1`,
      [id, assignees],
    );
    return request;
  }

  /**
   * The last timeout of a request, in the transaction of the step's outcome: `expired_at` set and,
   * for onTimeout reject or approve, the decision made by TIMEOUT_DECIDER (the request no longer
   * pending; `approvals` keeps the reviewers' decisions only). Returns the request as it now is.
   */
  async expire(client: Queryable, id: string, decision: Decision | null): Promise<ApprovalRow> {
    const res = await client.query<ApprovalRow>(
      decision === null
        ? `UPDATE approval_requests SET expired_at = now()
           WHERE id = $1 AND decision IS NULL RETURNING ${COLUMNS}`
        : `WITH expired AS (
             UPDATE approval_requests
             SET expired_at = now(), decision = $2, decided_by = $3, decided_at = now(),
                 comment = NULL
             WHERE id = $1 AND decision IS NULL
             RETURNING ${COLUMNS}
           ), settled AS (
             UPDATE approval_assignees SET decided = true WHERE request_id = $1
           )
           SELECT * FROM expired`,
      decision === null ? [id] : [id, decision, TIMEOUT_DECIDER],
    );
    if (!res.rows[0]) throw new Error(`approval request ${id} was decided while it expired`);
    return res.rows[0];
  }

  /**
   * Newest first (`oldest`: oldest first); `pending` true: undecided only, false: decided only,
   * undefined: all. At most `limit` rows, only those past the request `cursor` in that order (older
   * for newest first, newer for oldest first) when it is given; null when `cursor` is not a request of
   * this workspace. Either order walks the same index, forwards or backwards.
   */
  async list(
    workspaceId: string,
    pending: boolean | undefined,
    limit: number,
    order: 'newest' | 'oldest' = 'newest',
    cursor?: string,
    assignee?: string,
  ): Promise<ApprovalRow[] | null> {
    if (assignee !== undefined) {
      return this.listAssigned(workspaceId, assignee, pending, limit, order, cursor);
    }
    const filter =
      pending === undefined ? '' : pending ? 'AND decision IS NULL' : 'AND decision IS NOT NULL';
    const direction = order === 'newest' ? 'DESC' : 'ASC';
    if (cursor === undefined) {
      const res = await this.db.query<ApprovalRow>(
        `SELECT ${COLUMNS} FROM approval_requests WHERE workspace_id = $1 ${filter}
         ORDER BY created_at ${direction}, id ${direction} LIMIT $2`,
        [workspaceId, limit],
      );
      return res.rows;
    }
    const found = await this.db.query(
      'SELECT 1 FROM approval_requests WHERE workspace_id = $1 AND id = $2',
      [workspaceId, cursor],
    );
    if (found.rowCount === 0) return null;
    // The cursor's created_at is compared in SQL: read back into JavaScript it would lose its
    // microseconds, and requests made in the same millisecond would be skipped.
    const past = order === 'newest' ? '<' : '>';
    const res = await this.db.query<ApprovalRow>(
      `SELECT ${COLUMNS} FROM approval_requests
       WHERE workspace_id = $1 ${filter}
         AND (created_at, id) ${past} (SELECT created_at, id FROM approval_requests WHERE id = $3)
       ORDER BY created_at ${direction}, id ${direction} LIMIT $2`,
      [workspaceId, limit, cursor],
    );
    return res.rows;
  }

  /**
   * `list` for the requests of one assignee (assigneeListStatement), with the same cursor check.
   */
  private async listAssigned(
    workspaceId: string,
    assignee: string,
    pending: boolean | undefined,
    limit: number,
    order: 'newest' | 'oldest',
    cursor: string | undefined,
  ): Promise<ApprovalRow[] | null> {
    if (cursor !== undefined) {
      const found = await this.db.query(
        'SELECT 1 FROM approval_requests WHERE workspace_id = $1 AND id = $2',
        [workspaceId, cursor],
      );
      if (found.rowCount === 0) return null;
    }
    const statement = assigneeListStatement(workspaceId, assignee, pending, limit, order, cursor);
    const res = await this.db.query<ApprovalRow>(statement.text, statement.values);
    return res.rows;
  }

  /** One request of the workspace. */
  async get(workspaceId: string, id: string): Promise<ApprovalRow | undefined> {
    const res = await this.db.query<ApprovalRow>(
      `SELECT ${COLUMNS} FROM approval_requests WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return res.rows[0];
  }

  /** Undecided requests: as many as `pending=true` lists (read from the partial pending index). */
  async countPending(workspaceId: string): Promise<number> {
    const res = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM approval_requests WHERE workspace_id = $1 AND decision IS NULL',
      [workspaceId],
    );
    return res.rows[0].n;
  }

  /**
   * Undecided requests whose run still waits for them (PAUSED): those a reviewer can act on. Requests
   * left undecided by a cancelled or failed run can never be decided again, so they do not count
   * against MAX_PENDING_APPROVALS_PER_WORKSPACE (which would otherwise fill up for good).
   */
  async countAwaitingDecision(workspaceId: string): Promise<number> {
    const res = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM approval_requests a
       JOIN workflow_runs r ON r.id = a.run_id
       WHERE a.workspace_id = $1 AND a.decision IS NULL AND r.status = 'PAUSED'`,
      [workspaceId],
    );
    return res.rows[0].n;
  }

  /**
   * Rejections of one approval step in one run since the run's last manual retry (a manual retry
   * starts the step's attempts afresh, design §4). Includes a rejection just decided.
   */
  async countRejections(runId: string, stepName: string): Promise<number> {
    const res = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM approval_requests
       WHERE run_id = $1 AND step_name = $2 AND decision = 'rejected'
         AND created_at > COALESCE(
           (SELECT max(created_at) FROM run_events
            WHERE run_id = $1 AND event_type = 'STEP_RETRYING' AND payload->>'manual' = 'true'),
           '-infinity')`,
      [runId, stepName],
    );
    return res.rows[0].n;
  }

  /**
   * Records a decision. A final one (any decision of a single-approver request, a rejection, or the
   * approval that completes the quorum of `required_approvals` distinct deciders) wakes the parked
   * step with it: the request, the step row (PENDING, due now, woken by a signal carrying the
   * decision), the run (PAUSED -> RUNNING), the APPROVAL_DECIDED event and the approval.decided webhook
   * rows commit together. An approval short of the quorum is only added to `approvals`, with an
   * APPROVAL_VOTE_RECORDED event; the run stays PAUSED and the step keeps its timer. Everything
   * happens under the run's lock, so concurrent decisions are applied one after the other: of two
   * approvals racing for the last vote one completes the request and the other finds it decided.
   */
  decide(
    workspaceId: string,
    id: string,
    d: {
      decision: Decision;
      decidedBy: string;
      comment: string | null;
      editedContent: Record<string, unknown> | null;
    },
  ): Promise<DecideResult> {
    return this.db.transaction(async (client) => {
      const found = await client.query<{ run_id: string }>(
        'SELECT run_id FROM approval_requests WHERE workspace_id = $1 AND id = $2',
        [workspaceId, id],
      );
      if (found.rowCount === 0) return { ok: false, reason: 'not-found' };
      const runId = found.rows[0].run_id;
      const run = await client.query<{ status: RunStatus }>(
        'SELECT status FROM workflow_runs WHERE id = $1 FOR UPDATE',
        [runId],
      );
      const locked = await client.query<ApprovalRow>(
        `SELECT ${COLUMNS} FROM approval_requests WHERE id = $1 FOR UPDATE`,
        [id],
      );
      const request = locked.rows[0];
      if (request.decision !== null) {
        return { ok: false, reason: 'already-decided', decision: request.decision };
      }
      const status = run.rows[0].status;
      const step = await client.query<{ status: string }>(
        'SELECT status FROM step_runs WHERE id = $1 FOR UPDATE',
        [request.step_run_id],
      );
      // Undecided, yet its step no longer parked while the run goes on: only its timer wakes it so
      // (claimed, or handed back to the queue by a process that stopped while applying it).
      const stepStatus = step.rows[0]?.status;
      if (status === 'RUNNING' && (stepStatus === 'RUNNING' || stepStatus === 'PENDING')) {
        return { ok: false, reason: 'timing-out' };
      }
      if (status !== 'PAUSED' || stepStatus !== 'WAITING') {
        return { ok: false, reason: 'run-not-paused', status };
      }
      const required = request.required_approvals;
      if (required > 1 && d.decision === 'edited') {
        return { ok: false, reason: 'edit-needs-single-approver', required };
      }
      if (d.decision === 'approved') {
        const before = approvers(request.approvals);
        if (before.has(d.decidedBy)) {
          return { ok: false, reason: 'already-approved', approvals: before.size, required };
        }
        if (before.size + 1 < required) {
          return { ok: true, final: false, request: await this.addVote(client, request, d) };
        }
      }
      const decided = await this.decideFinally(client, request, d);
      return { ok: true, final: true, request: decided };
    });
  }

  /** An approval short of the quorum: recorded with its decider, the request still undecided. */
  private async addVote(
    client: Queryable,
    request: ApprovalRow,
    d: { decidedBy: string; comment: string | null },
  ): Promise<ApprovalRow> {
    const updated = await client.query<ApprovalRow>(
      `UPDATE approval_requests SET approvals = approvals || ${VOTE('$2', "'approved'", '$3')}
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [request.id, d.decidedBy, d.comment],
    );
    const voted = updated.rows[0];
    await insertEvents(client, [
      {
        runId: request.run_id,
        workspaceId: request.workspace_id,
        stepRunId: request.step_run_id,
        type: 'APPROVAL_VOTE_RECORDED',
        payload: {
          stepName: request.step_name,
          approvalRequestId: request.id,
          decision: 'approved',
          decidedBy: d.decidedBy,
          comment: d.comment,
          approvals: approvers(voted.approvals).size,
          requiredApprovals: voted.required_approvals,
        },
      },
    ]);
    return voted;
  }

  /** The decision that decides the request, and everything it wakes (see `decide`). */
  private async decideFinally(
    client: Queryable,
    request: ApprovalRow,
    d: {
      decision: Decision;
      decidedBy: string;
      comment: string | null;
      editedContent: Record<string, unknown> | null;
    },
  ): Promise<ApprovalRow> {
    const { id, run_id: runId, workspace_id: workspaceId } = request;
    const editedContent = d.decision === 'edited' ? d.editedContent : null;
    const updated = await client.query<ApprovalRow>(
      `WITH decided AS (
         UPDATE approval_requests
         SET decision = $2::text, decided_by = $3::text, decided_at = now(), comment = $4::text,
             edited_content = $5, approvals = approvals || ${VOTE('$3', '$2', '$4')}
         WHERE id = $1 RETURNING ${COLUMNS}
       ), settled AS (
         UPDATE approval_assignees SET decided = true WHERE request_id = $1
       )
       SELECT * FROM decided`,
      [
        id,
        d.decision,
        d.decidedBy,
        d.comment,
        editedContent === null ? null : JSON.stringify(editedContent),
      ],
    );
    const decided = updated.rows[0];
    const signal: DecisionSignal = {
      approvalRequestId: id,
      decision: d.decision,
      decidedBy: d.decidedBy,
      comment: d.comment,
      editedContent,
      approvals: decided.approvals,
    };
    await this.queue.wakeWithSignal(client, runId, request.step_run_id, {
      signalType: APPROVAL_SIGNAL,
      payload: { ...signal },
      receivedAt: decided.decided_at!.toISOString(),
    });
    await insertEvents(client, [
      {
        runId,
        workspaceId,
        stepRunId: request.step_run_id,
        type: 'APPROVAL_DECIDED',
        payload: {
          stepName: request.step_name,
          approvalRequestId: id,
          decision: d.decision,
          decidedBy: d.decidedBy,
          comment: d.comment,
        },
      },
    ]);
    await enqueueWebhookEvent(client, {
      workspaceId,
      runId,
      event: 'approval.decided',
      data: {
        approvalRequestId: id,
        stepName: request.step_name,
        decision: d.decision,
        decidedBy: d.decidedBy,
        decidedAt: decided.decided_at!.toISOString(),
      },
    });
    return decided;
  }
}
