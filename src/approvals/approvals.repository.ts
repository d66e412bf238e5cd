import { Injectable } from '@nestjs/common';
import { Database, type Queryable } from '../common/database';
import { RunQueue } from '../queue/run-queue';
import type { RunStatus } from '../queue/statuses';
import { insertEvents } from '../queue/run-events';
import { enqueueWebhookEvent } from '../queue/outbox';
import type { Decision } from './dto/approval.dto';

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
}

export type DecideResult =
  | { ok: true; request: ApprovalRow }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'already-decided'; decision: Decision }
  | { ok: false; reason: 'run-not-paused'; status: RunStatus };

const COLUMNS = `id, workspace_id, run_id, step_run_id, step_name, content_key, content, prompt,
  decision, decided_by, decided_at, comment, edited_content, created_at`;

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

  /** Inserts a request in the caller's transaction (the approval step's outcome). */
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
    },
  ): Promise<ApprovalRow> {
    const res = await client.query(
      `INSERT INTO approval_requests (workspace_id, run_id, step_run_id, step_name, content_key, content, prompt)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [
        r.workspaceId,
        r.runId,
        r.stepRunId,
        r.stepName,
        r.contentKey,
        JSON.stringify(r.content),
        r.prompt,
      ],
    );
    return res.rows[0] as ApprovalRow;
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
  ): Promise<ApprovalRow[] | null> {
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
   * Records a decision and wakes the parked step with it: the request, the step row (PENDING, due
   * now, woken by a signal carrying the decision), the run (PAUSED -> RUNNING), the APPROVAL_DECIDED
   * event and the approval.decided webhook rows commit together.
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
      if (status !== 'PAUSED' || step.rows[0]?.status !== 'WAITING') {
        return { ok: false, reason: 'run-not-paused', status };
      }
      const editedContent = d.decision === 'edited' ? d.editedContent : null;
      const updated = await client.query<ApprovalRow>(
        `UPDATE approval_requests
         SET decision = $2, decided_by = $3, decided_at = now(), comment = $4, edited_content = $5
         WHERE id = $1 RETURNING ${COLUMNS}`,
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
      return { ok: true, request: decided };
    });
  }
}
