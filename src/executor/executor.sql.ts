/**
 * Every query of the executor, in one place, with why it is shaped the way it is. Step runs are the
 * queue: a row is claimable when it is PENDING (or WAITING on a timer) and due. Finished rows never
 * enter the partial index `step_runs_due_idx`, so the claim costs the same with a million finished rows.
 */

export const STEP_READY_CHANNEL = 'wf_step_ready';
export const RUN_CANCELLED_CHANNEL = 'wf_run_cancelled';

/**
 * Claims up to $2 due step runs for worker $1 with a lease of $3 ms. SKIP LOCKED lets any number of
 * executors claim concurrently without waiting on each other or taking the same row. A WAITING row that
 * comes due was parked on a timer (wait step, signal timeout): the claim records that as its wake reason.
 * The WHERE clause repeats the partial index predicate so the planner can use it. The run row is
 * locked (and skipped when busy) together with the step: the API's cancel/resume/retry lock the run
 * first and then its steps, so a claim that took the step and then waited for the run would deadlock
 * with them when a timer comes due during such a request.
 */
export const CLAIM_STEPS = `
  WITH due AS (
    SELECT s.id FROM step_runs s JOIN workflow_runs r ON r.id = s.run_id
    WHERE s.status IN ('PENDING', 'WAITING') AND s.due_at IS NOT NULL AND s.due_at <= now()
    ORDER BY s.due_at
    LIMIT $2
    FOR UPDATE OF s, r SKIP LOCKED
  )
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
            s.wake_reason, s.signal, s.started_at`;

/**
 * Moves the claimed steps' runs to RUNNING: from PENDING (their first step: WORKFLOW_STARTED is recorded)
 * or from WAITING (a timer came due). The CTE reports the status each run had before.
 */
export const START_RUNS = `
  WITH prev AS (
    SELECT id, status FROM workflow_runs
    WHERE id = ANY ($1::uuid[]) AND status IN ('PENDING', 'WAITING')
    FOR UPDATE
  )
  UPDATE workflow_runs r SET status = 'RUNNING', updated_at = now()
  FROM prev WHERE r.id = prev.id
  RETURNING r.id, prev.status AS previous`;

/** The state the claimed steps execute against (definitions are immutable and cached in memory). */
export const LOAD_RUNS = `
  SELECT id, workspace_id, definition_id, status, state, steps_executed
  FROM workflow_runs WHERE id = ANY ($1::uuid[])`;

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
 * The hot path of a completed step whose run goes on, in one statement instead of four: the step row
 * completed, the next step row inserted (already claimed by this worker, or PENDING and announced with
 * NOTIFY), the run's state and position updated, and the events recorded in order. Ids are made by the
 * caller so that the events can name the next step. Data-modifying CTEs always run, whatever the final
 * SELECT reads.
 */
export const ADVANCE_RUN = `
  WITH done AS (
    UPDATE step_runs
    SET status = 'COMPLETED', output = $2, error = NULL, completed_at = now(),
        locked_by = NULL, lock_expires_at = NULL, wake_reason = NULL
    WHERE id = $1
  ), next_step AS (
    INSERT INTO step_runs (id, run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                           due_at, locked_by, lock_expires_at, started_at)
    SELECT $3, $4, $5, $6, $7, $8, s.status, 1,
           CASE WHEN s.status = 'PENDING' THEN now() END,
           $10,
           CASE WHEN s.status = 'RUNNING' THEN now() + make_interval(secs => $11::float8 / 1000) END,
           CASE WHEN s.status = 'RUNNING' THEN now() END
    FROM (SELECT $9::varchar AS status) s
    RETURNING started_at, status
  ), run AS (
    UPDATE workflow_runs
    SET state = $12, current_step_index = $6, steps_executed = $13, status = 'RUNNING', updated_at = now()
    WHERE id = $4
  ), events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT * FROM unnest($14::uuid[], $15::uuid[], $16::uuid[], $17::text[], $18::jsonb[])
  )
  SELECT started_at,
         CASE WHEN status = 'PENDING' THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified
  FROM next_step`;

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
