import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database, type Queryable } from '../common/database';
import type { BudgetPeriod } from './budget-period';

/**
 * Told, in the transaction that sets or removes a workspace's budget, to every process that executes
 * LLM steps (BudgetDirectory); the payload is `set:<workspace id>` or `clear:<workspace id>`.
 */
export const BUDGET_CHANGED_CHANNEL = 'wf_budget_changed';

/**
 * The first key of the per-workspace advisory lock (`pg_advisory_xact_lock(int, int)`) under which
 * reservations are checked and written; the second is derived from the workspace id.
 */
const RESERVATION_LOCK_CLASS = 727_002;

/** 32 bits of a workspace id (its last 8 hex digits: random in v4 and v7 ids) as a signed int. */
export function workspaceLockKey(workspaceId: string): number {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workspaceId)) {
    throw new RangeError(`not a uuid: ${workspaceId}`);
  }
  return parseInt(workspaceId.slice(-8), 16) | 0;
}

export interface WorkspaceBudgetRow {
  /** Exact decimals (numeric as text); limit null when the workspace has no budget. */
  limit_usd: string | null;
  spent_usd: string;
}

/** Which budget a reservation was refused by. */
export type BudgetKind = 'workspace' | 'run' | 'step';

export interface ReservationRequest {
  workspaceId: string;
  runId: string;
  stepRunId: string;
  stepName: string;
  workerId: string;
  /** The reservation's id (one per step execution: later requests of it replace its amount). */
  reservationId: string;
  /** What the step execution may spend now, exact decimal: its unrecorded calls plus `requestUsd`. */
  amountUsd: string;
  /** The worst case of the provider request about to start, exact decimal. */
  requestUsd: string;
  period: BudgetPeriod;
  /** The run's maxCostUsd (the definition's) and the step's, exact decimals; null when not set. */
  runLimitUsd: string | null;
  stepLimitUsd: string | null;
  /** Write the reservation even when a budget would be exceeded (a human allowed it). */
  force: boolean;
}

export interface ReservationFigures {
  /** Exact decimals; the spent/reserved of a budget that does not apply are null. */
  limit: string;
  spent: string;
  /** Reserved by other step executions in flight plus this one's unrecorded calls. */
  reserved: string;
}

export type ReservationResult =
  { ok: true } | { ok: false; budget: BudgetKind; figures: ReservationFigures };

/**
 * One statement, run under the workspace's advisory lock (taken by the statement before it, so that
 * this one's snapshot sees every reservation committed before the lock was granted):
 *
 * - `live`: the workspace's reservations that still count: their step run is RUNNING under the lease
 *   of the worker that wrote them (one of a process that died stops counting when its lease expires,
 *   one of a cancelled run at once). `stale` deletes the others.
 * - `figures`: per budget that applies, the spent and the reserved (live reservations but this
 *   execution's own, whose amount is replaced by $7). The workspace's spent in the month is its
 *   `budget_spend` row (kept equal to the sum of the month's records by a trigger); without one
 *   (`unseeded`) nothing is decided or written, and the caller seeds it (SEED_SPEND) and asks again.
 *   The run's and the step's are summed from the run's records (cost_records_run_idx).
 * - the first budget (workspace, run, step) that spent + reserved + $7 would pass is `exceeded`; the
 *   reservation is written (or its amount replaced) only when none is, or when $12 forces it.
 *
 * A reservation is deleted in the transaction that records the step's outcome and its cost records
 * (RELEASE_RESERVATION), whose commit also adds them to `budget_spend`: a cost moves from reserved to
 * spent atomically, so the sums read here never miss a call in flight, and two steps racing for the
 * last cents serialise on the lock.
 *
 * $1 workspace, $2 run, $3 step name, $4 reservation id, $5 step run, $6 worker, $7 amount,
 * $8 period start, $9 run limit, $10 step limit, $11 force, $12 request.
 */
export const RESERVE = `
  WITH live AS (
    SELECT r.id, r.run_id, r.step_name, r.amount_usd
    FROM budget_reservations r
    JOIN step_runs s ON s.id = r.step_run_id
    WHERE r.workspace_id = $1 AND r.id <> $4
      AND s.status = 'RUNNING' AND s.locked_by = r.worker_id AND s.lock_expires_at > now()
  ), stale AS (
    DELETE FROM budget_reservations r
    WHERE r.workspace_id = $1 AND r.id <> $4 AND r.id NOT IN (SELECT id FROM live)
    RETURNING r.id
  ), budget AS (
    SELECT monthly_limit_usd FROM workspace_budgets WHERE workspace_id = $1
  ), figures AS (
    SELECT
      (SELECT monthly_limit_usd FROM budget) AS ws_limit,
      (SELECT spent_usd FROM budget_spend WHERE workspace_id = $1 AND period_start = $8)
        AS ws_spent,
      (SELECT COALESCE(sum(amount_usd), 0) FROM live) AS ws_reserved,
      CASE WHEN $9::numeric IS NOT NULL THEN
        (SELECT COALESCE(sum(c.cost_usd), 0) FROM cost_records c
         WHERE c.workspace_id = $1 AND c.run_id = $2)
      END AS run_spent,
      (SELECT COALESCE(sum(amount_usd), 0) FROM live WHERE run_id = $2) AS run_reserved,
      CASE WHEN $10::numeric IS NOT NULL THEN
        (SELECT COALESCE(sum(c.cost_usd), 0) FROM cost_records c
         WHERE c.workspace_id = $1 AND c.run_id = $2 AND c.step_name = $3)
      END AS step_spent,
      (SELECT COALESCE(sum(amount_usd), 0) FROM live WHERE run_id = $2 AND step_name = $3)
        AS step_reserved
  ), verdict AS (
    SELECT f.*, f.ws_limit IS NOT NULL AND f.ws_spent IS NULL AS unseeded,
      CASE
        WHEN f.ws_limit IS NOT NULL AND f.ws_spent IS NULL THEN NULL
        WHEN f.ws_limit IS NOT NULL AND f.ws_spent + f.ws_reserved + $7::numeric > f.ws_limit
          THEN 'workspace'
        WHEN $9::numeric IS NOT NULL AND f.run_spent + f.run_reserved + $7::numeric > $9::numeric
          THEN 'run'
        WHEN $10::numeric IS NOT NULL AND f.step_spent + f.step_reserved + $7::numeric > $10::numeric
          THEN 'step'
      END AS exceeded
    FROM figures f
  ), reserved AS (
    INSERT INTO budget_reservations (id, workspace_id, run_id, step_run_id, step_name, worker_id,
                                     amount_usd)
    SELECT $4, $1, $2, $5, $3, $6, $7::numeric FROM verdict
    WHERE NOT unseeded AND (exceeded IS NULL OR $11::boolean)
    ON CONFLICT (id) DO UPDATE SET amount_usd = EXCLUDED.amount_usd
    RETURNING id
  )
  SELECT v.unseeded, v.exceeded,
         CASE v.exceeded WHEN 'workspace' THEN v.ws_limit WHEN 'run' THEN $9::numeric
                         WHEN 'step' THEN $10::numeric END::text AS limit_usd,
         CASE v.exceeded WHEN 'workspace' THEN v.ws_spent WHEN 'run' THEN v.run_spent
                         WHEN 'step' THEN v.step_spent END::text AS spent_usd,
         (CASE v.exceeded WHEN 'workspace' THEN v.ws_reserved WHEN 'run' THEN v.run_reserved
                          WHEN 'step' THEN v.step_reserved END
          + $7::numeric - $12::numeric)::text AS reserved_usd,
         (SELECT count(*) FROM reserved)::int AS written,
         (SELECT count(*) FROM stale)::int AS stale
  FROM verdict v`;

/**
 * The workspace's `budget_spend` row of the month starting $2 (next month $3): the exact sum of its
 * records, written under the advisory lock after the workspace row's FOR UPDATE has let every
 * transaction inserting records commit; later ones add theirs through the trigger. Rows of earlier
 * months go: no check reads them again.
 */
const SEED_SPEND = `
  WITH old AS (
    DELETE FROM budget_spend WHERE workspace_id = $1 AND period_start < $2
  )
  INSERT INTO budget_spend (workspace_id, period_start, spent_usd)
  SELECT $1, $2, COALESCE(sum(cost_usd), 0) FROM cost_records
  WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3
  ON CONFLICT (workspace_id, period_start) DO UPDATE SET spent_usd = EXCLUDED.spent_usd`;

/**
 * Removes a step execution's reservation, in the transaction that records its outcome (and its cost
 * records): what it reserved becomes what it spent in one commit.
 */
const RELEASE_RESERVATION = `DELETE FROM budget_reservations WHERE id = $1`;

/** Workspace budgets and the reservations of LLM calls in flight. */
@Injectable()
export class BudgetsRepository {
  constructor(private readonly db: Database) {}

  /** The workspace's limit (null: none) and its recorded spend in `period`. */
  async get(workspaceId: string, period: BudgetPeriod): Promise<WorkspaceBudgetRow> {
    const res = await this.db.query<WorkspaceBudgetRow>(
      `SELECT (SELECT monthly_limit_usd::text FROM workspace_budgets WHERE workspace_id = $1)
                AS limit_usd,
              (SELECT COALESCE(sum(cost_usd), 0)::text FROM cost_records
               WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3) AS spent_usd`,
      [workspaceId, period.start, period.next],
    );
    return res.rows[0];
  }

  /**
   * Sets (a decimal string) or removes (null) the workspace's budget, and tells every executor
   * (BUDGET_CHANGED_CHANNEL) in the same transaction.
   */
  async set(workspaceId: string, limitUsd: string | null): Promise<void> {
    await this.db.transaction(async (client) => {
      if (limitUsd === null) {
        await client.query('DELETE FROM workspace_budgets WHERE workspace_id = $1', [workspaceId]);
        // Without a row the trigger on cost_records locks nothing for this workspace any more.
        await client.query('DELETE FROM budget_spend WHERE workspace_id = $1', [workspaceId]);
      } else {
        await client.query(
          `INSERT INTO workspace_budgets (workspace_id, monthly_limit_usd) VALUES ($1, $2)
           ON CONFLICT (workspace_id)
           DO UPDATE SET monthly_limit_usd = EXCLUDED.monthly_limit_usd, updated_at = now()`,
          [workspaceId, limitUsd],
        );
      }
      await client.query('SELECT pg_notify($1, $2)', [
        BUDGET_CHANGED_CHANNEL,
        `${limitUsd === null ? 'clear' : 'set'}:${workspaceId}`,
      ]);
    });
  }

  /** Every workspace that has a budget (BudgetDirectory's load). */
  async workspacesWithBudget(): Promise<string[]> {
    const res = await this.db.query<{ workspace_id: string }>(
      'SELECT workspace_id FROM workspace_budgets',
    );
    return res.rows.map((r) => r.workspace_id);
  }

  /**
   * Checks the budgets that apply and writes the reservation when they allow it (RESERVE), in one short
   * transaction holding the workspace's advisory lock: BEGIN and the lock in one round trip, the
   * statement, COMMIT.
   */
  async reserve(r: ReservationRequest): Promise<ReservationResult> {
    // Integers only: safe to write into the text, so BEGIN and the lock share one round trip.
    const row = await this.db.transaction(
      async (client) => {
        const first = await this.check(client, r);
        if (!first.unseeded) return first;
        // The month's first check: wait for the transactions still inserting this workspace's cost
        // records (their foreign key holds a KEY SHARE lock on its row), then sum the month.
        await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [r.workspaceId]);
        await client.query(SEED_SPEND, [r.workspaceId, r.period.start, r.period.next]);
        return this.check(client, r);
      },
      `BEGIN; SELECT pg_advisory_xact_lock(${RESERVATION_LOCK_CLASS}, ${workspaceLockKey(r.workspaceId)})`,
    );
    if (row.exceeded === null || r.force) return { ok: true };
    return {
      ok: false,
      budget: row.exceeded,
      figures: { limit: row.limit_usd!, spent: row.spent_usd!, reserved: row.reserved_usd! },
    };
  }

  private async check(client: PoolClient, r: ReservationRequest) {
    const res = await client.query<{
      unseeded: boolean;
      exceeded: BudgetKind | null;
      limit_usd: string | null;
      spent_usd: string | null;
      reserved_usd: string | null;
    }>(RESERVE, [
      r.workspaceId,
      r.runId,
      r.stepName,
      r.reservationId,
      r.stepRunId,
      r.workerId,
      r.amountUsd,
      r.period.start,
      r.runLimitUsd,
      r.stepLimitUsd,
      r.force,
      r.requestUsd,
    ]);
    return res.rows[0];
  }

  /** Deletes a reservation in the caller's transaction (the step's outcome). */
  async release(client: Queryable, reservationId: string): Promise<void> {
    await client.query(RELEASE_RESERVATION, [reservationId]);
  }
}
