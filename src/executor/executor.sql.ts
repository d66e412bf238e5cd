/**
 * Every query of the executor, in one place, with why it is shaped the way it is. Step runs are the
 * queue: a row is claimable when it is PENDING (or WAITING on a timer) and due. Finished rows never
 * enter the partial index `step_runs_due_idx`, so the claim costs the same with a million finished rows.
 */

import { WEBHOOK_READY_CHANNEL } from '../webhooks/outbox';

export const STEP_READY_CHANNEL = 'wf_step_ready';
export const RUN_CANCELLED_CHANNEL = 'wf_run_cancelled';

/**
 * Claims up to $2 due step runs for worker $1 with a lease of $3 ms, in one statement: the step rows
 * go RUNNING, their runs go RUNNING (from PENDING, their first step, or from WAITING, a timer came
 * due), WORKFLOW_STARTED and STEP_STARTED are recorded in order, and the rows come back with their
 * runs' state. SKIP LOCKED lets any number of executors claim concurrently without waiting on each
 * other or taking the same row. A WAITING row that comes due was parked on a timer (wait step, signal
 * timeout): the claim records that as its wake reason, and a woken step records no second
 * STEP_STARTED. The WHERE clause repeats the partial index predicate so the planner can use it. The
 * run row is locked (and skipped when busy) together with the step: the API's cancel/resume/retry
 * lock the run first and then its steps, so a claim that took the step and then waited for the run
 * would deadlock with them when a timer comes due during such a request. At most one step of a run
 * is ever due, so a run appears once.
 */
export const CLAIM_STEPS = `
  WITH due AS (
    SELECT s.id, r.status AS run_status, r.definition_id, r.state, r.steps_executed
    FROM step_runs s JOIN workflow_runs r ON r.id = s.run_id
    WHERE s.status IN ('PENDING', 'WAITING') AND s.due_at IS NOT NULL AND s.due_at <= now()
    ORDER BY s.due_at
    LIMIT $2
    FOR UPDATE OF s, r SKIP LOCKED
  ), claimed AS (
    UPDATE step_runs s
    SET status = 'RUNNING',
        wake_reason = CASE WHEN s.status = 'WAITING' THEN 'timer' ELSE s.wake_reason END,
        locked_by = $1,
        lock_expires_at = now() + make_interval(secs => $3::float8 / 1000),
        started_at = COALESCE(s.started_at, now()),
        due_at = NULL
    FROM due
    WHERE s.id = due.id
    RETURNING s.id, s.run_id, s.workspace_id, s.step_index, s.step_name, s.step_type, s.attempt,
              s.wake_reason, s.signal, s.started_at, due.run_status, due.definition_id, due.state,
              due.steps_executed
  ), started AS (
    UPDATE workflow_runs r SET status = 'RUNNING', updated_at = now()
    FROM claimed c
    WHERE r.id = c.run_id AND c.run_status IN ('PENDING', 'WAITING')
  ), events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT run_id, workspace_id, step_run_id, event_type, payload FROM (
      SELECT c.id AS ord, 0 AS k, c.run_id, c.workspace_id, NULL::uuid AS step_run_id,
             'WORKFLOW_STARTED' AS event_type, '{}'::jsonb AS payload
      FROM claimed c WHERE c.run_status = 'PENDING'
      UNION ALL
      SELECT c.id, 1, c.run_id, c.workspace_id, c.id, 'STEP_STARTED',
             jsonb_build_object('stepName', c.step_name, 'stepType', c.step_type, 'attempt', c.attempt)
      FROM claimed c WHERE c.wake_reason IS NULL
    ) e
    ORDER BY ord, k
  )
  SELECT id, run_id, workspace_id, step_index, step_name, step_type, attempt, wake_reason, signal,
         started_at, definition_id, state, steps_executed
  FROM claimed`;

export const LOAD_DEFINITION_STEPS = `SELECT steps FROM workflow_definitions WHERE id = $1`;

/**
 * Locks the run before touching its step: the API's cancel/resume/retry lock the run first too, so the
 * two sides serialise on one row and never deadlock (the claim skips runs that are locked).
 */
export const LOCK_RUN = `
  SELECT id, workspace_id, definition_id, status, state, steps_executed
  FROM workflow_runs WHERE id = $1 FOR UPDATE`;

/**
 * Confirms the step is still ours: a worker whose lease was taken over, or whose run was cancelled,
 * must not record a result. Every completion path starts with this check under the run lock.
 */
export const CHECK_OWNERSHIP = `
  SELECT 1 FROM step_runs WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING'`;

/** A step whose run ended while it was in flight is closed rather than left to its lease. */
export const CLOSE_ORPHAN_STEP = `
  UPDATE step_runs
  SET status = 'CANCELLED', completed_at = now(), locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING'`;

export const COMPLETE_STEP = `
  UPDATE step_runs
  SET status = 'COMPLETED', output = $2, error = NULL, completed_at = now(),
      locked_by = NULL, lock_expires_at = NULL, wake_reason = NULL
  WHERE id = $1`;

/** Parks a step: WAITING on a timer ($2 set) or until a signal or decision arrives ($2 null). */
export const PARK_STEP = `
  UPDATE step_runs
  SET status = 'WAITING', due_at = $2, wake_reason = NULL, signal = NULL,
      locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1`;

/** Schedules the next attempt of the same step run after the back-off delay ($3 ms). */
export const RETRY_STEP = `
  UPDATE step_runs
  SET status = 'PENDING', attempt = $2, due_at = now() + make_interval(secs => $3::float8 / 1000),
      error = $4, wake_reason = NULL, signal = NULL, locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1`;

export const FAIL_STEP = `
  UPDATE step_runs
  SET status = 'FAILED', error = $2, completed_at = now(), locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1`;

/**
 * The next step of a run. Inserted either PENDING and due now (any executor may take it, woken by
 * NOTIFY), or already RUNNING under this worker's lease when the worker continues the run itself,
 * which saves a claim round trip while keeping one durable checkpoint per step.
 */
export const INSERT_STEP = `
  INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                         due_at, locked_by, lock_expires_at, started_at)
  SELECT $1, $2, $3, $4, $5, s.status, 1,
         CASE WHEN s.status = 'PENDING' THEN now() END,
         $7,
         CASE WHEN s.status = 'RUNNING' THEN now() + make_interval(secs => $8::float8 / 1000) END,
         CASE WHEN s.status = 'RUNNING' THEN now() END
  FROM (SELECT $6::varchar AS status) s
  RETURNING id, started_at`;

/**
 * The first two CTEs of the hot-path statements below: the run locked (still RUNNING) before its step
 * (still RUNNING under this worker's lease, $2), the same order as the API's transitions. When either
 * check fails, `owned` is empty, nothing is written, and the caller takes the general path, which
 * decides how to discard the outcome.
 */
const OWNED_STEP = (runParam: string) => `
  run AS (
    SELECT id FROM workflow_runs WHERE id = ${runParam} AND status = 'RUNNING' FOR UPDATE
  ), owned AS (
    SELECT s.id FROM step_runs s, run
    WHERE s.id = $1 AND s.locked_by = $2 AND s.status = 'RUNNING'
    FOR UPDATE OF s
  ), done AS (
    UPDATE step_runs s
    SET status = 'COMPLETED', output = $3, error = NULL, completed_at = now(),
        locked_by = NULL, lock_expires_at = NULL, wake_reason = NULL
    FROM owned WHERE s.id = owned.id
  )`;

/** Inserts the events given as five parallel arrays starting at parameter $n, in array order. */
const INSERT_EVENTS_FROM = (n: number) => `
  INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
  SELECT e.run_id, e.workspace_id, e.step_run_id, e.event_type, e.payload
  FROM unnest($${n}::uuid[], $${n + 1}::uuid[], $${n + 2}::uuid[], $${n + 3}::text[], $${n + 4}::jsonb[])
       WITH ORDINALITY AS e(run_id, workspace_id, step_run_id, event_type, payload, ord)
  WHERE EXISTS (SELECT 1 FROM owned)
  ORDER BY e.ord`;

/**
 * The hot path of a completed step whose run goes on, as one statement (and so one transaction
 * without BEGIN/COMMIT round trips): the step row completed, the next step row inserted (already
 * claimed by this worker, or PENDING and announced with NOTIFY), the run's state and position
 * updated, and the events recorded in order. Ids are made by the caller so that the events can name
 * the next step. Data-modifying CTEs always run, whatever the final SELECT reads.
 *
 * $1 step, $2 worker, $3 output, $4 next step id, $5 run, $6 workspace, $7 next index, $8 next name,
 * $9 next type, $10 'RUNNING' (continued here) or 'PENDING', $11 lease ms, $12 state,
 * $13 steps executed, $14-$18 events.
 */
export const ADVANCE_RUN = `
  WITH ${OWNED_STEP('$5')}, next_step AS (
    INSERT INTO step_runs (id, run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                           due_at, locked_by, lock_expires_at, started_at)
    SELECT $4, $5, $6, $7, $8, $9, $10::varchar, 1,
           CASE WHEN $10 = 'PENDING' THEN now() END,
           CASE WHEN $10 = 'RUNNING' THEN $2 END,
           CASE WHEN $10 = 'RUNNING' THEN now() + make_interval(secs => $11::float8 / 1000) END,
           CASE WHEN $10 = 'RUNNING' THEN now() END
    FROM owned
    RETURNING started_at, status
  ), run_update AS (
    UPDATE workflow_runs r
    SET state = $12, current_step_index = $7, steps_executed = $13, updated_at = now()
    FROM owned WHERE r.id = $5
  ), events AS (${INSERT_EVENTS_FROM(14)}
  )
  SELECT started_at,
         CASE WHEN status = 'PENDING' THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified
  FROM next_step`;

/**
 * The hot path of a run's last step completing, as one statement: the step and the run completed,
 * the events recorded, and a workflow.completed delivery queued for each subscribed webhook (the
 * body as enqueueWebhookEvent builds it; completedAt is finished_at in milliseconds) and announced.
 * Returns no row when the step or run is no longer ours.
 *
 * $1 step, $2 worker, $3 output, $4 run, $5 workspace, $6 state (also the run's output),
 * $7 step index, $8 steps executed, $9-$13 events, $14 the body's timestamp.
 */
export const COMPLETE_RUN = `
  WITH ${OWNED_STEP('$4')}, finished AS (
    UPDATE workflow_runs r
    SET state = $6, current_step_index = $7, steps_executed = $8, status = 'COMPLETED', output = $6,
        error = NULL, updated_at = now(), finished_at = now()
    FROM owned WHERE r.id = $4
    RETURNING r.finished_at
  ), events AS (${INSERT_EVENTS_FROM(9)}
  ), deliveries AS (
    INSERT INTO webhook_deliveries (webhook_id, workspace_id, message_id, event_type, run_id, body,
                                    next_attempt_at)
    SELECT w.id, w.workspace_id, 'msg_' || replace(gen_random_uuid()::text, '-', ''),
           'workflow.completed', $4,
           jsonb_build_object(
             'event', 'workflow.completed', 'workflowRunId', $4::text, 'workspaceId', $5::text,
             'data', jsonb_build_object(
               'status', 'COMPLETED', 'output', $6::jsonb,
               'completedAt', to_char(f.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
             'timestamp', $14::text),
           now()
    FROM webhooks w, finished f
    WHERE w.workspace_id = $5::uuid AND w.is_active AND 'workflow.completed' = ANY (w.events)
    RETURNING 1
  )
  SELECT f.finished_at,
         CASE WHEN EXISTS (SELECT 1 FROM deliveries)
              THEN pg_notify('${WEBHOOK_READY_CHANNEL}', '') END AS notified
  FROM finished f`;

export const UPDATE_RUN_PROGRESS = `
  UPDATE workflow_runs
  SET state = $2, current_step_index = $3, steps_executed = $4, status = $5, updated_at = now()
  WHERE id = $1`;

export const FINISH_RUN = `
  UPDATE workflow_runs
  SET state = $2, current_step_index = $3, steps_executed = $4, status = $5, output = $6, error = $7,
      updated_at = now(), finished_at = now()
  WHERE id = $1
  RETURNING finished_at`;

/** Keeps the leases of in-flight steps alive while they run longer than a lease. */
export const EXTEND_LEASES = `
  UPDATE step_runs SET lock_expires_at = now() + make_interval(secs => $3::float8 / 1000)
  WHERE id = ANY ($2::uuid[]) AND locked_by = $1 AND status = 'RUNNING'`;

/**
 * Returns steps whose worker died (lease expired) to the queue; any executor then claims them again.
 * Uses the partial index over RUNNING rows only.
 */
export const REAP_EXPIRED_LEASES = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = now(), locked_by = NULL, lock_expires_at = NULL
  WHERE status = 'RUNNING' AND lock_expires_at < now()
  RETURNING id`;

/**
 * Hands back a step whose outcome could not be recorded (a lost connection, say) after a short pause,
 * rather than leaving it to its lease.
 */
export const RELEASE_STEP = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = now() + interval '1 second', locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING'`;

/** On shutdown: hands this worker's unfinished steps back at once instead of waiting for the lease. */
export const RELEASE_WORKER_STEPS = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = now(), locked_by = NULL, lock_expires_at = NULL
  WHERE locked_by = $1 AND status = 'RUNNING'
  RETURNING id`;

export const NOTIFY_STEP_READY = `SELECT pg_notify('${STEP_READY_CHANNEL}', '')`;
