import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approval policies (README "Approval steps"): who a request is for (`assignees`), the quorum
 * (`required_approvals` distinct deciders), the decisions so far (`approvals`, one entry per decision,
 * the final one included), and the timeout: `expires_at` (a copy of the parked step's due time, which
 * is what actually wakes the executor), what happens then (`on_timeout`), an escalation
 * (`escalated_at`, with the assignees it replaced in `escalated_from`) and the expiry itself
 * (`expired_at`). Every new column has a constant default or none, so adding them rewrites nothing;
 * the requests decided before this migration get their decision as their one entry in `approvals`.
 *
 * `approval_assignees` has one row per request and current assignee, with the request's `created_at`,
 * so that `GET /v1/approval-requests?assignee=` reads an index in the list's own order (newest or
 * oldest first, continued by cursor) instead of every request of the workspace. `decided` mirrors
 * `decision IS NOT NULL` for the pending inbox ("for me"), served by its own partial index like
 * `approval_requests_pending_idx`. An escalation replaces the request's rows.
 */
export class ApprovalPolicies1763900013000 implements MigrationInterface {
  name = 'ApprovalPolicies1763900013000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approval_requests
        ADD COLUMN assignees text[] NOT NULL DEFAULT '{}',
        ADD COLUMN required_approvals integer NOT NULL DEFAULT 1
          CONSTRAINT approval_requests_required_approvals_check CHECK (required_approvals >= 1),
        ADD COLUMN approvals jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN on_timeout varchar(16)
          CONSTRAINT approval_requests_on_timeout_check
          CHECK (on_timeout IS NULL OR on_timeout IN ('reject', 'approve', 'fail')),
        ADD COLUMN escalated_at timestamptz,
        ADD COLUMN escalated_from text[],
        ADD COLUMN expired_at timestamptz`);
    await q.query(`
      UPDATE approval_requests
      SET approvals = jsonb_build_array(jsonb_build_object(
        'decidedBy', decided_by, 'decision', decision,
        'decidedAt', to_char(decided_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'comment', comment))
      WHERE decision IS NOT NULL`);
    await q.query(`
      CREATE TABLE approval_assignees (
        request_id uuid NOT NULL REFERENCES approval_requests(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL,
        assignee text NOT NULL,
        created_at timestamptz NOT NULL,
        decided boolean NOT NULL DEFAULT false,
        PRIMARY KEY (request_id, assignee)
      )`);
    await q.query(
      `CREATE INDEX approval_assignees_list_idx
       ON approval_assignees (workspace_id, assignee, created_at DESC, request_id DESC)`,
    );
    await q.query(
      `CREATE INDEX approval_assignees_pending_idx
       ON approval_assignees (workspace_id, assignee, created_at DESC, request_id DESC)
       WHERE NOT decided`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE approval_assignees`);
    await q.query(`
      ALTER TABLE approval_requests
        DROP COLUMN expired_at,
        DROP COLUMN escalated_from,
        DROP COLUMN escalated_at,
        DROP COLUMN on_timeout,
        DROP COLUMN expires_at,
        DROP COLUMN approvals,
        DROP COLUMN required_approvals,
        DROP COLUMN assignees`);
  }
}
