import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { pgPool, withTransaction } from '../common/database';
import type { StepDefinition } from '../steps/step-definition';
import {
  NOTIFY_STEP_READY,
  RUN_CANCELLED_CHANNEL,
  STEP_READY_CHANNEL,
} from '../executor/executor.sql';
import { enqueueWebhookEvent } from '../queue/outbox';
import { insertEvents } from '../queue/run-events';
import type { RunStatus } from './dto/run.dto';

export interface RunRow {
  id: string;
  workspace_id: string;
  definition_id: string;
  status: RunStatus;
  input: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: string | null;
  idempotency_key: string | null;
  current_step_index: number;
  created_at: Date;
  updated_at: Date;
}

export interface StepRunRow {
  id: string;
  step_index: number;
  step_name: string;
  step_type: string;
  status: string;
  attempt: number;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface EventRow {
  id: string;
  run_id: string;
  step_run_id: string | null;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

const RUN_COLUMNS = `id, workspace_id, definition_id, status, input, output, error, idempotency_key,
  current_step_index, created_at, updated_at`;
const RUN_COLUMNS_OF_R = RUN_COLUMNS.split(',')
  .map((c) => `r.${c.trim()}`)
  .join(', ');

/**
 * The common case of creating a run, in one statement: the run and its first step run (PENDING, due
 * now) inserted, the executors woken. Returns no row, having written nothing, when the definition is
 * not the workspace's or the idempotency key is already taken.
 */
const CREATE_RUN = `
  WITH def AS (
    SELECT steps -> 0 ->> 'name' AS step_name, steps -> 0 ->> 'type' AS step_type
    FROM workflow_definitions WHERE workspace_id = $1::uuid AND id = $2::uuid
  ), run AS (
    INSERT INTO workflow_runs (workspace_id, definition_id, input, state, idempotency_key)
    SELECT $1::uuid, $2::uuid, $3::jsonb, $3::jsonb, $4::varchar FROM def
    ON CONFLICT (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING ${RUN_COLUMNS}
  ), first_step AS (
    INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
    SELECT run.id, $1::uuid, 0, def.step_name, def.step_type, 'PENDING', now() FROM run, def
  )
  SELECT run.*, pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified FROM run`;

/**
 * Resume as one statement. The run is locked first, then its parked step (the order of every
 * transition and of the executor). The step takes the signal when the run is WAITING and, for an
 * external_event step, the signal type is the one its definition names. Returns the run's status,
 * the expected signal type when it did not match, and whether the run was resumed; no row when the
 * run is not the workspace's.
 *
 * $1 run, $2 workspace, $3 signal type, $4 payload, $5 the signal as the step receives it.
 */
const RESUME_RUN = `
  WITH run AS (
    SELECT id, status, definition_id FROM workflow_runs
    WHERE id = $1 AND workspace_id = $2
    FOR UPDATE
  ), parked AS (
    SELECT s.id, s.step_index, s.step_name, s.step_type FROM step_runs s, run
    WHERE s.run_id = run.id AND run.status = 'WAITING' AND s.status = 'WAITING'
    ORDER BY s.seq DESC LIMIT 1
    FOR UPDATE OF s
  ), expected AS (
    SELECT d.steps -> p.step_index ->> 'signalType' AS signal_type
    FROM parked p, run, workflow_definitions d
    WHERE p.step_type = 'external_event' AND d.id = run.definition_id
  ), accepted AS (
    SELECT p.* FROM parked p
    WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.signal_type <> $3::text)
  ), step_update AS (
    UPDATE step_runs s SET status = 'PENDING', due_at = now(), wake_reason = 'signal', signal = $5::jsonb
    FROM accepted a WHERE s.id = a.id
  ), run_update AS (
    UPDATE workflow_runs r SET status = 'RUNNING', updated_at = now()
    FROM accepted a WHERE r.id = $1
    RETURNING r.updated_at
  ), events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT $1, $2, a.id, 'SIGNAL_RECEIVED',
           jsonb_build_object('signalType', $3::text, 'stepName', a.step_name, 'payload', $4::jsonb)
    FROM accepted a
  )
  SELECT run.status, (SELECT signal_type FROM expected) AS expected, u.updated_at IS NOT NULL AS resumed,
         u.updated_at,
         CASE WHEN u.updated_at IS NOT NULL THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified
  FROM run LEFT JOIN run_update u ON true`;

/** Outcomes of the API's run transitions; the service maps them to answers and errors. */
export type TransitionResult =
  | { ok: true; run: { id: string; status: RunStatus; updated_at: Date } }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'bad-state'; status: RunStatus }
  | { ok: false; reason: 'signal-mismatch'; expected: string };

/**
 * Run reads and the transitions the API drives (create, cancel, resume, retry). Each transition locks
 * the run row first, as the executor does, so concurrent requests on one run have exactly one winner.
 */
@Injectable()
export class RunsRepository {
  private readonly pool: Pool;

  constructor(db: DataSource) {
    this.pool = pgPool(db);
  }

  /** Creates the run and its first step run (due now), or returns the run holding the idempotency key. */
  async create(
    workspaceId: string,
    definitionId: string,
    input: Record<string, unknown>,
    idempotencyKey: string | undefined,
  ): Promise<{ run: RunRow; created: boolean } | undefined> {
    const values = [workspaceId, definitionId, JSON.stringify(input), idempotencyKey ?? null];
    const quick = await this.pool.query<RunRow>({
      name: 'runs_create',
      text: CREATE_RUN,
      values,
    });
    if (quick.rowCount) return { run: quick.rows[0], created: true };
    // No row: the definition does not exist here, or the idempotency key is taken. The transaction
    // below tells the two apart (and waits for a concurrent holder of the key).
    return withTransaction(this.pool, async (client) => {
      const def = await client.query<{ steps: StepDefinition[] }>(
        'SELECT steps FROM workflow_definitions WHERE workspace_id = $1 AND id = $2',
        [workspaceId, definitionId],
      );
      if (def.rowCount === 0) return undefined;
      // ON CONFLICT waits for a concurrent insert of the same key and then yields to it.
      const inserted = await client.query<RunRow>(
        `INSERT INTO workflow_runs (workspace_id, definition_id, input, state, idempotency_key)
         VALUES ($1, $2, $3, $3, $4)
         ON CONFLICT (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING ${RUN_COLUMNS}`,
        values,
      );
      if (inserted.rowCount === 0) {
        const existing = await client.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND idempotency_key = $2`,
          [workspaceId, idempotencyKey],
        );
        return { run: existing.rows[0], created: false };
      }
      const run = inserted.rows[0];
      const first = def.rows[0].steps[0];
      await client.query(
        `INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
         VALUES ($1, $2, 0, $3, $4, 'PENDING', now())`,
        [run.id, workspaceId, first.name, first.type],
      );
      await client.query(NOTIFY_STEP_READY);
      return { run, created: true };
    });
  }

  async list(
    workspaceId: string,
    filter: { status?: string; definitionId?: string },
    limit: number,
    offset: number,
  ): Promise<{ rows: RunRow[]; total: number }> {
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspaceId];
    if (filter.status) {
      params.push(filter.status);
      where.push(`status = $${params.length}`);
    }
    if (filter.definitionId) {
      params.push(filter.definitionId);
      where.push(`definition_id = $${params.length}`);
    }
    const clause = where.join(' AND ');
    // Deferred join: the page's ids come from the covering index alone (the offset is walked there,
    // never in the table), then only those rows are read.
    const [rows, count] = await Promise.all([
      this.pool.query<RunRow>(
        `SELECT ${RUN_COLUMNS_OF_R} FROM workflow_runs r
         JOIN (SELECT id FROM workflow_runs WHERE ${clause}
               ORDER BY created_at DESC, id DESC
               LIMIT $${params.length + 1} OFFSET $${params.length + 2}) page ON page.id = r.id
         ORDER BY r.created_at DESC, r.id DESC`,
        [...params, limit, offset],
      ),
      this.pool.query<{ total: string }>(
        `SELECT count(*) AS total FROM workflow_runs WHERE ${clause}`,
        params,
      ),
    ]);
    return { rows: rows.rows, total: Number(count.rows[0].total) };
  }

  async get(workspaceId: string, id: string): Promise<RunRow | undefined> {
    const res = await this.pool.query<RunRow>({
      name: 'runs_get',
      text: `SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND id = $2`,
      values: [workspaceId, id],
    });
    return res.rows[0];
  }

  async exists(workspaceId: string, id: string): Promise<boolean> {
    const res = await this.pool.query(
      'SELECT 1 FROM workflow_runs WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async events(
    workspaceId: string,
    runId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: EventRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.pool.query<EventRow>(
        `SELECT id, run_id, step_run_id, event_type, payload, created_at FROM run_events
         WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq LIMIT $3 OFFSET $4`,
        [runId, workspaceId, limit, offset],
      ),
      this.pool.query<{ total: string }>(
        'SELECT count(*) AS total FROM run_events WHERE run_id = $1 AND workspace_id = $2',
        [runId, workspaceId],
      ),
    ]);
    return { rows: rows.rows, total: Number(count.rows[0].total) };
  }

  async steps(workspaceId: string, runId: string): Promise<StepRunRow[]> {
    const res = await this.pool.query<StepRunRow>(
      `SELECT id, step_index, step_name, step_type, status, attempt, output, error, started_at, completed_at
       FROM step_runs WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq`,
      [runId, workspaceId],
    );
    return res.rows;
  }

  /** PENDING, RUNNING, WAITING or PAUSED -> CANCELLED; in-flight steps are told through NOTIFY. */
  cancel(workspaceId: string, id: string): Promise<TransitionResult> {
    return this.transition(workspaceId, id, async (client, run) => {
      if (!['PENDING', 'RUNNING', 'WAITING', 'PAUSED'].includes(run.status)) {
        return { ok: false, reason: 'bad-state', status: run.status };
      }
      const updated = await client.query<{ id: string; status: RunStatus; updated_at: Date }>(
        `UPDATE workflow_runs SET status = 'CANCELLED', updated_at = now(), finished_at = now()
         WHERE id = $1 RETURNING id, status, updated_at`,
        [id],
      );
      await client.query(
        `UPDATE step_runs SET status = 'CANCELLED', due_at = NULL, locked_by = NULL,
                lock_expires_at = NULL, completed_at = now()
         WHERE run_id = $1 AND status IN ('PENDING', 'RUNNING', 'WAITING')`,
        [id],
      );
      await insertEvents(client, [
        { runId: id, workspaceId, stepRunId: null, type: 'WORKFLOW_CANCELLED' },
      ]);
      const row = updated.rows[0];
      await enqueueWebhookEvent(client, {
        workspaceId,
        runId: id,
        event: 'workflow.cancelled',
        data: { status: 'CANCELLED', cancelledAt: row.updated_at.toISOString() },
      });
      await client.query('SELECT pg_notify($1, $2)', [RUN_CANCELLED_CHANNEL, id]);
      return { ok: true, run: row };
    });
  }

  /**
   * WAITING -> RUNNING: hands the signal to the parked step and queues it, in one statement
   * (RESUME_RUN). An external_event step takes only its own signalType.
   */
  async resume(
    workspaceId: string,
    id: string,
    signalType: string,
    payload: Record<string, unknown>,
  ): Promise<TransitionResult> {
    const receivedAt = new Date().toISOString();
    const res = await this.pool.query<{
      status: RunStatus;
      expected: string | null;
      resumed: boolean;
      updated_at: Date | null;
    }>({
      name: 'runs_resume',
      text: RESUME_RUN,
      values: [
        id,
        workspaceId,
        signalType,
        JSON.stringify(payload),
        JSON.stringify({ signalType, payload, receivedAt }),
      ],
    });
    const row = res.rows[0];
    if (!row) return { ok: false, reason: 'not-found' };
    if (row.resumed)
      return { ok: true, run: { id, status: 'RUNNING', updated_at: row.updated_at! } };
    if (row.status === 'WAITING' && row.expected !== null) {
      return { ok: false, reason: 'signal-mismatch', expected: row.expected };
    }
    return { ok: false, reason: 'bad-state', status: row.status };
  }

  /** FAILED -> RUNNING: the failed step runs again with fresh attempts; earlier outputs stay. */
  retry(
    workspaceId: string,
    id: string,
    steps: (definitionId: string) => Promise<StepDefinition[]>,
  ): Promise<TransitionResult> {
    return this.transition(workspaceId, id, async (client, run) => {
      if (run.status !== 'FAILED') return { ok: false, reason: 'bad-state', status: run.status };
      const definition = await steps(run.definition_id);
      const step = definition[run.current_step_index];
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
         VALUES ($1, $2, $3, $4, $5, 'PENDING', now()) RETURNING id`,
        [id, workspaceId, run.current_step_index, step.name, step.type],
      );
      const updated = await client.query<{ id: string; status: RunStatus; updated_at: Date }>(
        `UPDATE workflow_runs SET status = 'RUNNING', error = NULL, output = NULL, finished_at = NULL,
                steps_executed = 0, updated_at = now()
         WHERE id = $1 RETURNING id, status, updated_at`,
        [id],
      );
      await insertEvents(client, [
        {
          runId: id,
          workspaceId,
          stepRunId: inserted.rows[0].id,
          type: 'STEP_RETRYING',
          payload: { stepName: step.name, attempt: 1, delayMs: 0, manual: true },
        },
      ]);
      await client.query(NOTIFY_STEP_READY);
      return { ok: true, run: updated.rows[0] };
    });
  }

  private transition(
    workspaceId: string,
    id: string,
    fn: (client: PoolClient, run: RunRow) => Promise<TransitionResult>,
  ): Promise<TransitionResult> {
    return withTransaction(this.pool, async (client) => {
      const res = await client.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
        [workspaceId, id],
      );
      const run = res.rows[0];
      if (!run) return { ok: false, reason: 'not-found' };
      return fn(client, run);
    });
  }
}
