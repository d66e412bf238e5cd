/**
 * Every statement that creates or moves step runs and run statuses, in one place, with why it is
 * shaped the way it is: the executor's claims and outcomes, and the API's transitions (create, cancel,
 * resume, retry, an approval's decision). Step runs are the queue: a row is claimable when it is
 * PENDING (or WAITING on a timer) and due. Finished rows never enter the partial index
 * `step_runs_workspace_due_idx`, so the claim costs the same with a million finished rows.
 */

import { keyIsActive } from '../common/key-check.sql';
import {
  RUN_CANCELLED_CHANNEL,
  RUN_EVENTS_CHANNEL,
  RUN_IDS_PER_NOTIFICATION,
  STEP_READY_CHANNEL,
  WEBHOOK_READY_CHANNEL,
} from './channels';

/**
 * `announced`: a CTE that announces on RUN_EVENTS_CHANNEL the distinct runs of `source` (a CTE with a
 * `run_id` column), up to RUN_IDS_PER_NOTIFICATION ids per notification. Every statement that records
 * run events includes it, so that live event streams learn of new events without polling. One
 * notification per statement rather than one per run or a trigger per row: NOTIFY's cost is mostly
 * per transaction (its commit takes PostgreSQL's notification queue lock), not per payload byte
 * (measured: bench scenario 9). A SELECT CTE runs only when read: the statement's result reads it
 * with `(SELECT count(*) FROM announced)`, once (an InitPlan), and only when the statement has rows,
 * which it has whenever it recorded events. The executor's statements (CLAIM_STEPS, ADVANCE_RUNS,
 * COMPLETE_RUNS) read it under `CASE WHEN $announce`, a parameter that RunEventAnnouncer sets only
 * while some process listens: an InitPlan runs when first read, so without listeners nothing is sent
 * and those commits skip the notification queue's lock.
 */
export const ANNOUNCE_RUN_EVENTS = (source: string) => `
  announced AS (
    SELECT pg_notify('${RUN_EVENTS_CHANNEL}', string_agg(run_id::text, ',')) AS sent
    FROM (SELECT run_id, (row_number() OVER () - 1) / ${RUN_IDS_PER_NOTIFICATION} AS part
          FROM (SELECT DISTINCT run_id FROM ${source}) runs) numbered
    GROUP BY part
  )`;

/** The partial predicate of `step_runs_workspace_due_idx`: rows that are or will become runnable. */
const QUEUED = `s.status IN ('PENDING', 'WAITING') AND s.due_at IS NOT NULL`;

/**
 * `queued`: every workspace with a row in the due index, found by a loose index scan (one descent of
 * `step_runs_workspace_due_idx` per workspace, the recursion stepping to the next workspace id), so
 * that neither a long backlog nor parked timers are read row by row. Ends with one NULL row.
 */
const QUEUED_WORKSPACES = `
  queued AS (
    (SELECT s.workspace_id FROM step_runs s WHERE ${QUEUED} ORDER BY s.workspace_id LIMIT 1)
    UNION ALL
    SELECT (SELECT s.workspace_id FROM step_runs s
            WHERE ${QUEUED} AND s.workspace_id > q.workspace_id
            ORDER BY s.workspace_id LIMIT 1)
    FROM queued q WHERE q.workspace_id IS NOT NULL
  )`;

/**
 * Claims up to $2 due step runs for worker $1 with a lease of $3 ms, in one statement: the step rows
 * go RUNNING, their runs go RUNNING (from PENDING, their first step, or from WAITING, a timer came
 * due), WORKFLOW_STARTED and STEP_STARTED are recorded in order, and the rows come back with their
 * runs' state.
 *
 * Fair across workspaces rather than first-in-first-out, so that one workspace's backlog cannot delay
 * another's first step: each workspace with due work offers its oldest due rows (`candidates`, read
 * per workspace from `step_runs_workspace_due_idx`), and a row's turn is its rank in its workspace
 * plus the steps that workspace already holds in this process ($4 workspaces, $5 counts). Turns are
 * taken in order, oldest first within a turn: rank 1 of every workspace before rank 2, and a workspace
 * that holds slots comes after those that hold fewer. Nothing is reserved: a lone workspace takes
 * every free slot. A workspace never gets more than $6 steps in this process
 * (WORKSPACE_MAX_CONCURRENT_STEPS, else the concurrency). The statement reads one index descent per
 * workspace with queued steps and at most $2 rows of each, never the length of a backlog. $7: whether
 * to announce the STEP_STARTED events it records (ANNOUNCE_RUN_EVENTS).
 *
 * SKIP LOCKED lets any number of executors claim concurrently without waiting on each other or taking
 * the same row; the rows are sorted into turn order before they are locked, so a row skipped is
 * replaced by the next in turn. The candidates are read without locks, so the locking SELECT checks
 * that each row still has the status and due time it was read with: a row another executor claimed
 * (or the API moved) meanwhile fails that re-check once its lock is granted and is passed over. The
 * check names no constant status on purpose: the partial index cannot serve it, and with the ids also
 * listed as an array the planner reaches the rows by primary key, never re-reading a backlog through
 * the index (or the table), whatever its possibly stale statistics say about the number of due rows.
 * A WAITING row that comes due was parked on a timer (wait step, signal timeout, an approval's
 * timeout, whose run is PAUSED): the claim records that as its wake reason, and a woken step records
 * no second STEP_STARTED. Its run goes RUNNING while the step executes, as for any claim, so that a
 * decision arriving meanwhile gets 409 instead of racing the timeout. The run row is locked (and skipped when busy) together with the
 * step: the API's cancel/resume/retry lock the run first and then its steps, so a claim that took the
 * step and then waited for the run would deadlock with them when a timer comes due during such a
 * request. At most one step of a run is ever due, so a run appears once.
 */
export const CLAIM_STEPS = `
  WITH RECURSIVE ${QUEUED_WORKSPACES}, held AS (
    SELECT * FROM unnest($4::uuid[], $5::int[]) AS h(workspace_id, steps)
  ), candidates AS (
    SELECT c.id, c.status, c.due_at,
           COALESCE(h.steps, 0) + row_number() OVER (PARTITION BY q.workspace_id ORDER BY c.due_at)
             AS turn
    FROM queued q
    LEFT JOIN held h ON h.workspace_id = q.workspace_id
    CROSS JOIN LATERAL (
      SELECT s.id, s.status, s.due_at
      FROM step_runs s
      WHERE s.workspace_id = q.workspace_id AND ${QUEUED} AND s.due_at <= now()
      ORDER BY s.due_at
      LIMIT LEAST($2, GREATEST($6::int - COALESCE(h.steps, 0), 0))
    ) c
  ), due AS (
    SELECT s.id, r.status AS run_status, r.definition_id, r.state, r.steps_executed,
           r.created_at AS run_created_at, c.due_at AS was_due, r.traceparent
    FROM candidates c
    JOIN step_runs s ON s.id = c.id AND s.status = c.status AND s.due_at = c.due_at
    JOIN workflow_runs r ON r.id = s.run_id
    WHERE s.id = ANY (ARRAY(SELECT id FROM candidates))
    ORDER BY c.turn, c.due_at
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
              due.steps_executed, due.run_created_at,
              EXTRACT(EPOCH FROM now() - due.was_due)::float8 AS claim_delay,
              due.traceparent
  ), started AS (
    UPDATE workflow_runs r SET status = 'RUNNING', updated_at = now()
    FROM claimed c
    WHERE r.id = c.run_id AND c.run_status IN ('PENDING', 'WAITING', 'PAUSED')
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
  ), ${ANNOUNCE_RUN_EVENTS('claimed')}
  SELECT id, run_id, workspace_id, step_index, step_name, step_type, attempt, wake_reason, signal,
         started_at, definition_id, state, steps_executed, run_created_at, claim_delay,
         traceparent, CASE WHEN $7::boolean THEN (SELECT count(*) FROM announced) END AS announced
  FROM claimed`;

/**
 * The workspaces with due steps, asked when every slot of this process is busy: a workspace holding
 * more slots than one of these then hands its run's next step back to the queue instead of continuing
 * it, and the claim gives the freed slot to the workspace that holds fewer. Reads one descent per
 * workspace, like the claim.
 */
export const DUE_WORKSPACES = `
  WITH RECURSIVE ${QUEUED_WORKSPACES}
  SELECT q.workspace_id FROM queued q
  CROSS JOIN LATERAL (
    SELECT 1 FROM step_runs s
    WHERE s.workspace_id = q.workspace_id AND ${QUEUED} AND s.due_at <= now()
    LIMIT 1
  ) due`;

/** A definition as the executor keeps it: its name, steps and run-level budget (exact, as text). */
export const LOAD_DEFINITION_STEPS = `
  SELECT name, steps, max_cost_usd::text AS max_cost_usd, on_budget_exceeded
  FROM workflow_definitions WHERE id = $1`;

/**
 * Locks the run before touching its step: the API's cancel/resume/retry lock the run first too, so the
 * two sides serialise on one row and never deadlock (the claim skips runs that are locked).
 */
export const LOCK_RUN = `
  SELECT id, workspace_id, definition_id, status, state, steps_executed, buffered_signals
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

/**
 * Parks a step: WAITING on a timer ($2 set) or until a signal or decision arrives ($2 null). An
 * outcome was recorded, so the count of executions that ended unrecorded starts again.
 */
export const PARK_STEP = `
  UPDATE step_runs
  SET status = 'WAITING', due_at = $2, wake_reason = NULL, signal = NULL,
      locked_by = NULL, lock_expires_at = NULL, record_failures = 0, record_error = NULL
  WHERE id = $1`;

/**
 * Schedules the next attempt of the same step run after the back-off delay ($3 ms). The failed
 * attempt was recorded, so the count of executions that ended unrecorded starts again.
 */
export const RETRY_STEP = `
  UPDATE step_runs
  SET status = 'PENDING', attempt = $2, due_at = now() + make_interval(secs => $3::float8 / 1000),
      error = $4, wake_reason = NULL, signal = NULL, locked_by = NULL, lock_expires_at = NULL,
      record_failures = 0, record_error = NULL
  WHERE id = $1`;

export const FAIL_STEP = `
  UPDATE step_runs
  SET status = 'FAILED', error = $2, completed_at = now(), locked_by = NULL, lock_expires_at = NULL
  WHERE id = $1`;

/**
 * The next step of a run ($1, an id made by the planner, so that its events can name it). Inserted
 * either PENDING and due now (any executor may take it, woken by NOTIFY), or already RUNNING under
 * this worker's lease when the worker continues the run itself, which saves a claim round trip while
 * keeping one durable checkpoint per step.
 */
export const INSERT_STEP = `
  INSERT INTO step_runs (id, run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                         due_at, locked_by, lock_expires_at, started_at)
  SELECT $1, $2, $3, $4, $5, $6, s.status, 1,
         CASE WHEN s.status = 'PENDING' THEN now() END,
         $8,
         CASE WHEN s.status = 'RUNNING' THEN now() + make_interval(secs => $9::float8 / 1000) END,
         CASE WHEN s.status = 'RUNNING' THEN now() END
  FROM (SELECT $7::varchar AS status) s
  RETURNING id, started_at`;

/** The signal type with which a child run's end wakes the `workflow` step waiting for it. */
export const CHILD_RUN_FINISHED_SIGNAL = 'child_run.finished';

/**
 * `parents_woken`: wakes the `workflow` steps waiting for the runs of `ended` (a CTE of runs that just
 * reached a terminal status, with their id, status, output, error, parent_step_run_id and
 * parent_wait_attempt): each such step, still WAITING at the attempt that started the child, becomes
 * due now with the child's end as its signal (wake reason `signal`), as a resume hands a signal to an
 * external_event step. The parent's run row is not touched, nor locked: a run ending locks its own
 * row, and a cancel locks a parent before its children, so locking the parent here could deadlock
 * with a cancel of the parent. The claim moves the parent WAITING -> RUNNING when it takes the step,
 * as for a timer, and the woken step records the child's end among its own events, under its run's
 * lock. A child of an earlier attempt, or one started without waiting (parent_wait_attempt null),
 * matches nothing.
 */
const WAKE_PARENT_STEPS = (ended: string) => `
  parents_woken AS (
    UPDATE step_runs s
    SET status = 'PENDING', due_at = now(), wake_reason = 'signal',
        signal = jsonb_build_object(
          'signalType', '${CHILD_RUN_FINISHED_SIGNAL}',
          'payload', jsonb_build_object('childRunId', e.id, 'status', e.status,
                                        'output', e.output, 'error', e.error),
          'receivedAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM ${ended} e
    WHERE e.parent_wait_attempt IS NOT NULL AND s.id = e.parent_step_run_id
      AND s.status = 'WAITING' AND s.attempt = e.parent_wait_attempt
    RETURNING s.id
  )`;

/**
 * Wakes the steps waiting for the runs $1 (ended in this transaction: a failure, a completion off the
 * hot path, a cancel), and the executors when it woke one.
 */
export const WAKE_PARENTS = `
  WITH ended AS (
    SELECT r.id, r.status, r.output, r.error, r.parent_step_run_id, r.parent_wait_attempt
    FROM workflow_runs r
    WHERE r.id = ANY ($1::uuid[]) AND r.status IN ('COMPLETED', 'FAILED', 'CANCELLED')
  ), ${WAKE_PARENT_STEPS('ended')}
  SELECT CASE WHEN EXISTS (SELECT 1 FROM parents_woken)
              THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified`;

/**
 * The CTEs the two hot-path statements below share, over `input` (one row per step outcome, with at
 * least step_id, run_id and output): the runs locked (still RUNNING, and passing `runCondition`) in id
 * order, then their steps completed where still RUNNING under this worker's lease ($1): run first, the
 * order the API's transitions use too, so concurrent statements never deadlock. `owned` keeps the
 * input rows that passed both checks; the others write nothing, and their callers take the general
 * path, which decides how to discard (or otherwise record) the outcome. Each condition is re-checked
 * on the row's newest version once its lock is granted. The step is locked by its UPDATE itself, not
 * by a FOR UPDATE before it: a row lock is a WAL record of its own (about 54 bytes per step). The
 * step's status is compared with its locked run's ('RUNNING'), not with a constant: the constant would
 * let the planner read the steps through the partial lease index, which holds every step running
 * anywhere, instead of by primary key.
 */
const OWNED_STEPS = (runCondition = '') => `
  run AS (
    SELECT r.id, r.status FROM workflow_runs r
    WHERE r.id IN (SELECT run_id FROM input) AND r.status = 'RUNNING'${runCondition}
    ORDER BY r.id
    FOR UPDATE
  ), owned AS (
    UPDATE step_runs s
    SET status = 'COMPLETED', output = i.output, error = NULL, completed_at = now(),
        locked_by = NULL, lock_expires_at = NULL, wake_reason = NULL
    FROM input i
    JOIN run ON run.id = i.run_id
    WHERE s.id = i.step_id AND s.locked_by = $1 AND s.status = run.status
    RETURNING i.*
  )`;

/** Inserts the events of the owned outcomes, given as five parallel arrays from $n, in array order. */
const INSERT_EVENTS_FROM = (n: number) => `
  INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
  SELECT e.run_id, e.workspace_id, e.step_run_id, e.event_type, e.payload
  FROM unnest($${n}::uuid[], $${n + 1}::uuid[], $${n + 2}::uuid[], $${n + 3}::text[], $${n + 4}::jsonb[])
       WITH ORDINALITY AS e(run_id, workspace_id, step_run_id, event_type, payload, ord)
  WHERE e.run_id IN (SELECT run_id FROM owned)
  ORDER BY e.ord`;

/**
 * The hot path of completed steps whose runs go on, for any number of runs in one statement (and so
 * one transaction, without BEGIN/COMMIT round trips): each step row completed, the next step row
 * inserted (already claimed by this worker, or PENDING and announced with NOTIFY), each run's state
 * and position updated, and the events recorded in order. Ids are made by the caller so that the
 * events can name the next step. Data-modifying CTEs always run, whatever the final SELECT reads.
 * Returns one row per owned outcome.
 *
 * $1 worker, $2 lease ms; per outcome: $3 step, $4 run, $5 workspace, $6 output, $7 next step id,
 * $8 next index, $9 next name, $10 next type, $11 'RUNNING' (continued here) or 'PENDING',
 * $12 state, $13 steps executed; $14-$18 the events; $19 whether to announce them (ANNOUNCE_RUN_EVENTS).
 */
export const ADVANCE_RUNS = `
  WITH input AS (
    SELECT * FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::jsonb[], $7::uuid[], $8::int[],
                         $9::varchar[], $10::varchar[], $11::varchar[], $12::jsonb[], $13::int[])
      AS i(step_id, run_id, workspace_id, output, next_id, next_index, next_name, next_type,
           next_status, state, steps_executed)
  ), ${OWNED_STEPS()}, next_step AS (
    INSERT INTO step_runs (id, run_id, workspace_id, step_index, step_name, step_type, status, attempt,
                           due_at, locked_by, lock_expires_at, started_at)
    SELECT o.next_id, o.run_id, o.workspace_id, o.next_index, o.next_name, o.next_type, o.next_status, 1,
           CASE WHEN o.next_status = 'PENDING' THEN now() END,
           CASE WHEN o.next_status = 'RUNNING' THEN $1 END,
           CASE WHEN o.next_status = 'RUNNING'
                THEN now() + make_interval(secs => $2::float8 / 1000) END,
           CASE WHEN o.next_status = 'RUNNING' THEN now() END
    FROM owned o
    RETURNING run_id, started_at, status
  ), run_update AS (
    UPDATE workflow_runs r
    SET state = o.state, current_step_index = o.next_index, steps_executed = o.steps_executed,
        updated_at = now()
    FROM owned o WHERE r.id = o.run_id
  ), events AS (${INSERT_EVENTS_FROM(14)}
  ), ${ANNOUNCE_RUN_EVENTS('owned')}
  SELECT n.run_id, n.started_at,
         CASE WHEN n.status = 'PENDING' THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified,
         CASE WHEN $19::boolean THEN (SELECT count(*) FROM announced) END AS announced
  FROM next_step n`;

/**
 * The hot path of runs whose last step completed, any number in one statement: the steps and runs
 * completed, the events recorded, and a workflow.completed delivery queued for each subscribed
 * webhook and announced. A run that holds buffered signals is not owned here: the general path ends it,
 * dropping them (DROP_RUN_SIGNALS) in the same transaction. Its counter is read from the locked run
 * row, which the lock re-reads: a signal buffered while this statement waited for the lock counts. Each delivery's body is the one `webhookBody` built for the run ($10), into
 * which the statement sets what only the database knows: the output and completedAt (finished_at in
 * milliseconds). Returns one row per owned outcome.
 *
 * $1 worker; per outcome: $2 step, $3 run, $4 workspace, $5 step output, $6 state (also the run's
 * output), $7 step index, $8 steps executed, $9 the webhook body; $10-$14 the events; $15 whether
 * to announce them (ANNOUNCE_RUN_EVENTS).
 */
export const COMPLETE_RUNS = `
  WITH input AS (
    SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::jsonb[], $6::jsonb[], $7::int[],
                         $8::int[], $9::jsonb[])
      AS i(step_id, run_id, workspace_id, output, state, step_index, steps_executed, body)
  ), ${OWNED_STEPS(' AND r.buffered_signals = 0')}, finished AS (
    UPDATE workflow_runs r
    SET state = o.state, current_step_index = o.step_index, steps_executed = o.steps_executed,
        status = 'COMPLETED', output = o.state, error = NULL, updated_at = now(), finished_at = now()
    FROM owned o WHERE r.id = o.run_id
    RETURNING r.id, r.workspace_id, r.status, r.output, r.error, r.finished_at, o.body,
              r.parent_step_run_id,
              r.parent_wait_attempt
  ), ${WAKE_PARENT_STEPS('finished')}, events AS (${INSERT_EVENTS_FROM(10)}
  ), deliveries AS (
    INSERT INTO webhook_deliveries (webhook_id, workspace_id, message_id, event_type, run_id, body,
                                    next_attempt_at)
    SELECT w.id, w.workspace_id, 'msg_' || replace(gen_random_uuid()::text, '-', ''),
           'workflow.completed', f.id,
           jsonb_set(jsonb_set(f.body, '{data,output}', f.output), '{data,completedAt}',
                     to_jsonb(to_char(f.finished_at AT TIME ZONE 'UTC',
                                      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
           now()
    FROM finished f
    JOIN webhooks w
      ON w.workspace_id = f.workspace_id AND w.is_active AND 'workflow.completed' = ANY (w.events)
    RETURNING 1
  ), ${ANNOUNCE_RUN_EVENTS('owned')}
  SELECT f.id AS run_id,
         CASE WHEN EXISTS (SELECT 1 FROM deliveries)
              THEN pg_notify('${WEBHOOK_READY_CHANNEL}', '') END AS notified,
         CASE WHEN EXISTS (SELECT 1 FROM parents_woken)
              THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS woke_parents,
         CASE WHEN $15::boolean THEN (SELECT count(*) FROM announced) END AS announced
  FROM finished f`;

export const UPDATE_RUN_PROGRESS = `
  UPDATE workflow_runs
  SET state = $2, current_step_index = $3, steps_executed = $4, status = $5, updated_at = now()
  WHERE id = $1`;

/** A run's end; `waits_parent` says whether a parent's step waits for it (WAKE_PARENTS). */
export const FINISH_RUN = `
  UPDATE workflow_runs
  SET state = $2, current_step_index = $3, steps_executed = $4, status = $5, output = $6, error = $7,
      updated_at = now(), finished_at = now()
  WHERE id = $1
  RETURNING finished_at, parent_wait_attempt IS NOT NULL AS waits_parent`;

/**
 * Keeps the leases of in-flight steps alive while they run longer than a lease. SKIP LOCKED: a step
 * row another transaction holds is being recorded or released right now, and this statement updates
 * many rows at once, so waiting for it could deadlock with a statement recording several outcomes in
 * another order (seen under load: 40P01). A skipped step keeps its lease until the next extension.
 */
export const EXTEND_LEASES = `
  UPDATE step_runs SET lock_expires_at = now() + make_interval(secs => $3::float8 / 1000)
  WHERE id IN (SELECT id FROM step_runs
               WHERE id = ANY ($2::uuid[]) AND locked_by = $1 AND status = 'RUNNING'
               FOR UPDATE SKIP LOCKED)`;

/**
 * The `due_at` of a step handed back without its outcome recorded, `record_failures` being the count
 * before this one: due after $delay, or, once the count reaches the limit $max, NULL. A PENDING row
 * without a due time is never claimed to execute (CLAIM_STEPS needs a due time): only
 * CLAIM_UNRECORDED_STEPS takes it, to record its failure. So a step whose outcome cannot be recorded
 * (or whose every execution kills its process) is executed at most $max times in a row, instead of
 * forever; the count lives on the row, so it holds across processes and restarts.
 */
const DUE_UNLESS_UNRECORDABLE = (max: string, delay: string, counted = '1') =>
  `CASE WHEN record_failures + ${counted} >= ${max} THEN NULL ELSE now() + ${delay} END`;

/**
 * Returns steps whose worker died (lease expired) to the queue; any executor then claims them again.
 * Such an execution ended without its outcome recorded, and counts as one (with $1 the limit), so
 * that a step which kills or stalls every process that runs it stops being re-claimed. Uses the
 * partial index over RUNNING rows only.
 */
export const REAP_EXPIRED_LEASES = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = ${DUE_UNLESS_UNRECORDABLE('$1', "interval '0'")},
      locked_by = NULL, lock_expires_at = NULL, record_failures = record_failures + 1,
      record_error = 'the process executing the step stopped before recording its outcome (its lease expired)'
  WHERE status = 'RUNNING' AND lock_expires_at < now()
  RETURNING id, due_at IS NULL AS unrecordable`;

/**
 * Hands back a step whose outcome could not be recorded (a lost connection, a value the database
 * refused) after a short pause, rather than leaving it to its lease, counting the failure ($5: 1, or 0
 * for a passing database fault that says nothing about the outcome) and keeping its cause ($3) for
 * the error recorded once the count reaches $4. Returns the new count.
 */
export const RELEASE_STEP = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = ${DUE_UNLESS_UNRECORDABLE('$4', "interval '1 second'", '$5::int')},
      locked_by = NULL, lock_expires_at = NULL, record_failures = record_failures + $5::int,
      record_error = $3
  WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING'
  RETURNING record_failures`;

/**
 * On shutdown: hands this worker's unfinished steps back at once instead of waiting for the lease. A
 * step it held only to record its failure ($2 is the limit) stays out of CLAIM_STEPS' reach.
 */
export const RELEASE_WORKER_STEPS = `
  UPDATE step_runs
  SET status = 'PENDING', due_at = CASE WHEN record_failures >= $2 THEN NULL ELSE now() END,
      locked_by = NULL, lock_expires_at = NULL
  WHERE locked_by = $1 AND status = 'RUNNING'
  RETURNING id`;

/**
 * Takes up to $2 steps whose outcome could not be recorded too many times (PENDING without a due
 * time, see DUE_UNLESS_UNRECORDABLE) under worker $1's lease of $3 ms, with what recording their
 * failure needs: the same columns as CLAIM_STEPS, plus the count and the last cause. No STEP_STARTED:
 * the step is not executed again. Locks the run with the step, like CLAIM_STEPS, and reads the tiny
 * partial index `step_runs_unrecorded_idx`.
 */
export const CLAIM_UNRECORDED_STEPS = `
  WITH doomed AS (
    SELECT s.id, r.definition_id, r.state, r.steps_executed, r.created_at
    FROM step_runs s JOIN workflow_runs r ON r.id = s.run_id
    WHERE s.status = 'PENDING' AND s.due_at IS NULL
    LIMIT $2
    FOR UPDATE OF s, r SKIP LOCKED
  )
  UPDATE step_runs s
  SET status = 'RUNNING', locked_by = $1,
      lock_expires_at = now() + make_interval(secs => $3::float8 / 1000),
      started_at = COALESCE(s.started_at, now())
  FROM doomed d
  WHERE s.id = d.id
  RETURNING s.id, s.run_id, s.workspace_id, s.step_index, s.step_name, s.step_type, s.attempt,
            s.wake_reason, s.signal, s.started_at, d.definition_id, d.state, d.steps_executed,
            d.created_at AS run_created_at, s.record_failures, s.record_error`;

export const NOTIFY_STEP_READY = `SELECT pg_notify('${STEP_READY_CHANNEL}', '')`;

/* ---- The API's transitions: create, cancel, resume, retry, an approval's decision. ---- */

/** The run columns the API answers with. */
export const RUN_COLUMNS = `id, workspace_id, definition_id, status, input, output, error, idempotency_key,
  current_step_index, schedule_id, created_at, updated_at, parent_run_id, parent_step_run_id`;

/**
 * The common case of creating a run, in one statement: the run and its first step run (PENDING, due
 * now) inserted, the executors woken. Returns no row, having written nothing, when the definition is
 * not the workspace's, the idempotency key is already taken, or $7 (a cached API key the request
 * came with, README "API key cache"; null otherwise) is no longer active. $5 is the `traceparent`
 * stored with the run (null when there is none): the executor links the run's step spans to it. $6
 * is the schedule that started the run (null for a run started through the API). The scheduler runs
 * it inside its claim's transaction, so a fire's run and the schedule's advance commit together.
 */
export const CREATE_RUN = `
  WITH def AS (
    SELECT name AS workflow, steps -> 0 ->> 'name' AS step_name, steps -> 0 ->> 'type' AS step_type
    FROM workflow_definitions WHERE workspace_id = $1::uuid AND id = $2::uuid AND ${keyIsActive('$7')}
  ), run AS (
    INSERT INTO workflow_runs (workspace_id, definition_id, input, state, idempotency_key,
                               traceparent, schedule_id)
    SELECT $1::uuid, $2::uuid, $3::jsonb, $3::jsonb, $4::varchar, $5::varchar, $6::uuid FROM def
    ON CONFLICT (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING ${RUN_COLUMNS}
  ), first_step AS (
    INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
    SELECT run.id, $1::uuid, 0, def.step_name, def.step_type, 'PENDING', now() FROM run, def
  )
  SELECT run.*, def.workflow, pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified
  FROM run, def`;

/**
 * CREATE_RUN for many requests at once (Batcher), runs without an idempotency key or a schedule:
 * item n of the arrays is a run of definition $2[n] of workspace $1[n] with input $3[n] (JSON text)
 * and traceparent $4[n], created only when $5[n] (a cached API key, or null) is active. The
 * definition is probed by primary key for each item (LATERAL ... LIMIT 1), never hashed from a scan
 * of the table. Each row is a created run with its item's `n` (1-based); an item with no
 * row wrote nothing (its definition is not its workspace's, or its key was revoked). No item can
 * fail the statement for the others: the inputs are checked JSON, and a run without an idempotency
 * key conflicts with nothing. One notification wakes the executors for all of them.
 */
export const CREATE_RUNS = `
  WITH def AS MATERIALIZED (
    SELECT uuid_v7() AS id, q.n, q.workspace_id, q.definition_id, q.input::jsonb AS input,
           q.traceparent, d.name AS workflow, d.steps -> 0 ->> 'name' AS step_name,
           d.steps -> 0 ->> 'type' AS step_type
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::varchar[], $5::uuid[])
           WITH ORDINALITY AS q(workspace_id, definition_id, input, traceparent, key_id, n)
    CROSS JOIN LATERAL (
      SELECT name, steps FROM workflow_definitions
      WHERE workspace_id = q.workspace_id AND id = q.definition_id LIMIT 1) d
    WHERE ${keyIsActive('q.key_id')}
  ), run AS (
    INSERT INTO workflow_runs (id, workspace_id, definition_id, input, state, traceparent)
    SELECT id, workspace_id, definition_id, input, input, traceparent FROM def ORDER BY id
    RETURNING ${RUN_COLUMNS}
  ), first_step AS (
    INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
    SELECT id, workspace_id, 0, step_name, step_type, 'PENDING', now() FROM def ORDER BY id
  ), notified AS (
    SELECT pg_notify('${STEP_READY_CHANNEL}', '')
  )
  SELECT run.*, def.n::int AS n, def.workflow FROM run JOIN def ON def.id = run.id, notified`;

/** The first step of a definition ($2) of workspace $1, read by the slow path of a create. */
export const FIRST_STEP = `
  SELECT steps -> 0 ->> 'name' AS name, steps -> 0 ->> 'type' AS type, name AS workflow
  FROM workflow_definitions WHERE workspace_id = $1 AND id = $2`;

/** The slow path's insert: ON CONFLICT waits for a concurrent insert of the same key, then yields. */
export const INSERT_RUN = `
  INSERT INTO workflow_runs (workspace_id, definition_id, input, state, idempotency_key, traceparent,
                             schedule_id)
  VALUES ($1, $2, $3, $3, $4, $5, $6)
  ON CONFLICT (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING ${RUN_COLUMNS}`;

export const RUN_BY_IDEMPOTENCY_KEY = `
  SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND idempotency_key = $2`;

/**
 * A step run due now, for any executor: $1 run, $2 workspace, $3 index, $4 name, $5 type. Used for a
 * run's first step (the slow path of a create) and for a manual retry.
 */
export const QUEUE_STEP = `
  INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
  VALUES ($1, $2, $3, $4, $5, 'PENDING', now()) RETURNING id`;

/** Locks a run of workspace $1 for an API transition: the run first, as every transition does. */
export const LOCK_WORKSPACE_RUN = `
  SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND id = $2 FOR UPDATE`;

export const CANCEL_RUN = `
  UPDATE workflow_runs r SET status = 'CANCELLED', updated_at = now(), finished_at = now()
  WHERE id = $1
  RETURNING id, status, updated_at, created_at,
            (SELECT d.name FROM workflow_definitions d WHERE d.id = r.definition_id) AS workflow`;

/** Closes every unfinished step of a cancelled run; in-flight ones are told through NOTIFY. */
/** Closes the unsettled items of a cancelled run's `map` steps. */
export const CANCEL_MAP_ITEMS = `
  UPDATE map_items SET status = 'CANCELLED', completed_at = now()
  WHERE run_id = $1 AND status IN ('PENDING', 'RUNNING')`;

export const CANCEL_STEPS = `
  UPDATE step_runs SET status = 'CANCELLED', due_at = NULL, locked_by = NULL,
         lock_expires_at = NULL, completed_at = now()
  WHERE run_id = $1 AND status IN ('PENDING', 'RUNNING', 'WAITING')`;

export const NOTIFY_RUN_CANCELLED = `SELECT pg_notify('${RUN_CANCELLED_CHANNEL}', $1)`;

/** FAILED -> RUNNING for a manual retry: the run starts its step count afresh. */
export const RESTART_RUN = `
  UPDATE workflow_runs SET status = 'RUNNING', error = NULL, output = NULL, finished_at = NULL,
         steps_executed = 0, updated_at = now()
  WHERE id = $1 RETURNING id, status, updated_at`;

/**
 * Wakes the parked step in `parked` (a CTE with its id) with the signal ${signal}: the step due now,
 * woken by a signal, and its run $runId RUNNING again. The one way a signal or a decision wakes a
 * step; `woken_run` returns the run's new updated_at.
 */
const WAKE_WITH_SIGNAL = (parked: string, signal: string, runId: string) => `
  woken_step AS (
    UPDATE step_runs s
    SET status = 'PENDING', due_at = now(), wake_reason = 'signal', signal = ${signal}::jsonb
    FROM ${parked} a WHERE s.id = a.id
  ), woken_run AS (
    UPDATE workflow_runs r SET status = 'RUNNING', updated_at = now()
    FROM ${parked} a WHERE r.id = ${runId}
    RETURNING r.updated_at
  )`;

/**
 * Resume as one statement. The run is locked first, then its parked step (the order of every
 * transition and of the executor). The step takes the signal when the run is WAITING and, for an
 * external_event step, the signal type is the one its definition names. Returns the run's status,
 * the expected signal type when it did not match, and whether the run was resumed; no row when the
 * run is not the workspace's.
 *
 * $1 run, $2 workspace, $3 signal type, $4 payload, $5 the signal as the step receives it.
 */
export const RESUME_RUN = `
  WITH run AS (
    SELECT id, status, definition_id FROM workflow_runs
    WHERE id = $1 AND workspace_id = $2
    FOR UPDATE
  ), parked AS (
    SELECT s.id, s.step_index, s.step_name, s.step_type FROM step_runs s, run
    WHERE s.run_id = run.id AND run.status = 'WAITING' AND s.status = 'WAITING'
      AND s.step_type NOT IN ('workflow', 'map')
    ORDER BY s.seq DESC LIMIT 1
    FOR UPDATE OF s
  ), expected AS (
    SELECT d.steps -> p.step_index ->> 'signalType' AS signal_type
    FROM parked p, run, workflow_definitions d
    WHERE p.step_type = 'external_event' AND d.id = run.definition_id
  ), accepted AS (
    SELECT p.* FROM parked p
    WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.signal_type <> $3::text)
  ), ${WAKE_WITH_SIGNAL('accepted', '$5', '$1')}, events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT $1, $2, a.id, 'SIGNAL_RECEIVED',
           jsonb_build_object('signalType', $3::text, 'stepName', a.step_name, 'payload', $4::jsonb)
    FROM accepted a
  )
  SELECT run.status, (SELECT signal_type FROM expected) AS expected, u.updated_at IS NOT NULL AS resumed,
         u.updated_at,
         CASE WHEN u.updated_at IS NOT NULL THEN pg_notify('${STEP_READY_CHANNEL}', '') END AS notified,
         CASE WHEN u.updated_at IS NOT NULL THEN pg_notify('${RUN_EVENTS_CHANNEL}', $1::text) END
           AS announced
  FROM run LEFT JOIN woken_run u ON true`;

/**
 * Wakes step $1 of run $2, parked for a decision, with the signal $3, inside the decision's
 * transaction (which holds the run's lock), and announces it.
 */
export const WAKE_STEP = `
  WITH parked AS (SELECT $1::uuid AS id), ${WAKE_WITH_SIGNAL('parked', '$3', '$2')}
  SELECT pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified FROM woken_run`;

/* ---- Signals (POST …/signals) and the buffer of signals that arrive early. ---- */

/**
 * Every statement below runs in a transaction that holds the run's row lock, taken first (as every
 * transition does): a signal's acceptance, an external_event step's parking and a run's end serialise
 * on that row, so that a signal is either delivered to a step already waiting, or buffered and taken
 * by the next matching step that parks, or dropped when the run ends; never two of these, never none.
 * A run's rows in `run_signals` change only under its lock, so `workflow_runs.buffered_signals` (the
 * count of them) is kept by the same statements.
 */

/** Locks run $2 of workspace $1 for a signal: its status and how many signals it holds buffered. */
export const LOCK_RUN_FOR_SIGNAL = `
  SELECT id, status, buffered_signals FROM workflow_runs
  WHERE workspace_id = $1 AND id = $2 FOR UPDATE`;

/**
 * Delivers a signal to the external_event step run $1 (WAITING, locked in the statement before) is
 * parked on, when the step takes its type ($3; a step without signalType takes any), exactly as
 * RESUME_RUN would: the step due now with the signal ($5) as its wake, the run RUNNING,
 * SIGNAL_RECEIVED recorded (with the signal's id $6) and announced. A `wait` step is never woken here
 * (resume ends a wait; a signal waits for an external_event step). No row when nothing took it.
 *
 * $1 run, $2 workspace, $3 signal type, $4 payload, $5 the signal as the step receives it, $6 its id.
 */
export const DELIVER_SIGNAL = `
  WITH parked AS (
    SELECT s.id, s.step_index, s.step_name FROM step_runs s
    WHERE s.run_id = $1 AND s.status = 'WAITING' AND s.step_type = 'external_event'
    ORDER BY s.seq DESC LIMIT 1
    FOR UPDATE OF s
  ), accepted AS (
    SELECT p.* FROM parked p
    JOIN workflow_runs r ON r.id = $1 AND r.status = 'WAITING'
    JOIN workflow_definitions d ON d.id = r.definition_id
    WHERE COALESCE(d.steps -> p.step_index ->> 'signalType', $3::text) = $3::text
  ), ${WAKE_WITH_SIGNAL('accepted', '$5', '$1')}, events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT $1, $2, a.id, 'SIGNAL_RECEIVED',
           jsonb_build_object('signalType', $3::text, 'stepName', a.step_name, 'payload', $4::jsonb,
                              'signalId', $6::uuid)
    FROM accepted a
  )
  SELECT u.updated_at, pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified,
         pg_notify('${RUN_EVENTS_CHANNEL}', $1::text) IS NULL AS announced
  FROM woken_run u`;

/**
 * Buffers signal $1 for run $2 (workspace $3): the row, the run's count, SIGNAL_BUFFERED (its id,
 * type and payload size; the payload itself is recorded when a step takes it), announced.
 *
 * $4 type, $5 payload, $6 its UTF-8 bytes of JSON, $7 the preview a run's read lists.
 */
export const BUFFER_SIGNAL = `
  WITH inserted AS (
    INSERT INTO run_signals (id, run_id, workspace_id, signal_type, payload, payload_bytes,
                             payload_preview)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
    RETURNING id, run_id, workspace_id, signal_type, payload_bytes, received_at
  ), counted AS (
    UPDATE workflow_runs SET buffered_signals = buffered_signals + 1 WHERE id = $2
  ), events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT i.run_id, i.workspace_id, NULL, 'SIGNAL_BUFFERED',
           jsonb_build_object('signalId', i.id, 'signalType', i.signal_type,
                              'payloadBytes', i.payload_bytes)
    FROM inserted i
  ), ${ANNOUNCE_RUN_EVENTS('inserted')}
  SELECT received_at, (SELECT count(*) FROM announced) AS announced FROM inserted`;

/**
 * An external_event step run $1 of run $2 about to park takes the run's oldest buffered signal of
 * type $3 (any type when null), in the transaction that records its outcome (holding the run's lock):
 * the row deleted and the count lowered, the step due now with the signal as its wake (wake reason
 * `signal`, the same columns RESUME_RUN sets, so that the step completes with the output a resume
 * would give it), the executors woken. `receivedAt` is when the signal was accepted. Returns the signal
 * taken, if any, for its SIGNAL_RECEIVED; with none, the caller parks the step (PARK_STEP).
 */
export const TAKE_BUFFERED_SIGNAL = `
  WITH taken AS (
    DELETE FROM run_signals
    WHERE id = (SELECT id FROM run_signals
                WHERE run_id = $2 AND ($3::text IS NULL OR signal_type = $3::text)
                ORDER BY seq LIMIT 1)
    RETURNING id, signal_type, payload,
              to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at
  ), counted AS (
    UPDATE workflow_runs SET buffered_signals = buffered_signals - 1
    WHERE id = $2 AND EXISTS (SELECT 1 FROM taken)
  ), woken AS (
    UPDATE step_runs s
    SET status = 'PENDING', due_at = now(), wake_reason = 'signal',
        signal = jsonb_build_object('signalType', t.signal_type, 'payload', t.payload,
                                    'receivedAt', t.received_at),
        locked_by = NULL, lock_expires_at = NULL, record_failures = 0, record_error = NULL
    FROM taken t WHERE s.id = $1
  )
  SELECT id, signal_type, payload, received_at,
         pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified
  FROM taken`;

/**
 * Drops every signal run $1 still holds buffered, oldest first, in the transaction that ends the run
 * (completion, failure or cancel, holding its lock). The caller records them in SIGNALS_DROPPED.
 */
export const DROP_RUN_SIGNALS = `
  WITH dropped AS (
    DELETE FROM run_signals WHERE run_id = $1 RETURNING id, seq, signal_type
  ), counted AS (
    UPDATE workflow_runs SET buffered_signals = 0
    WHERE id = $1 AND EXISTS (SELECT 1 FROM dropped)
  )
  SELECT id, signal_type FROM dropped ORDER BY seq`;

/* ---- Child runs: the `workflow` step. ---- */

/**
 * A definition of workspace $1 by id ($2) or by name and version ($3, $4), with its first step. Read
 * by the `workflow` step before it starts a child, so that a missing one fails the step with a clear
 * message instead of the outcome's transaction.
 */
export const CHILD_DEFINITION = `
  SELECT id, name, version, steps -> 0 ->> 'name' AS first_name, steps -> 0 ->> 'type' AS first_type
  FROM workflow_definitions
  WHERE workspace_id = $1 AND (id = $2::uuid OR ($2::uuid IS NULL AND name = $3 AND version = $4))`;

/**
 * Run $1 and its ancestors, nearest first, with their definitions and depths: the cycle and depth
 * checks of a child start. Bounded by the depth cap (a chain is never longer than
 * WORKFLOW_MAX_DEPTH + 1), each step one primary-key read.
 */
export const RUN_LINEAGE = `
  WITH RECURSIVE lineage AS (
    SELECT id, parent_run_id, definition_id, depth, 0 AS n FROM workflow_runs WHERE id = $1
    UNION ALL
    SELECT r.id, r.parent_run_id, r.definition_id, r.depth, l.n + 1
    FROM workflow_runs r JOIN lineage l ON r.id = l.parent_run_id
    WHERE l.n < 100
  )
  SELECT id, definition_id, depth FROM lineage ORDER BY n`;

/**
 * A child run and its first step (PENDING, due now), in the transaction that records the parent
 * step's outcome (which holds the parent's run lock), so that the child exists exactly when the
 * outcome does. $1 id (made by the step, so that its output and events can name it), $2 workspace,
 * $3 definition, $4 input, $5 parent run, $6 parent step run, $7 the waiting attempt (null: nobody
 * waits), $8 depth, $9 first step name, $10 first step type, $11 the `map` item it runs (null for a
 * `workflow` step's child). No idempotency key: the outcome is recorded once.
 */
export const INSERT_CHILD_RUN = `
  WITH run AS (
    INSERT INTO workflow_runs (id, workspace_id, definition_id, input, state, parent_run_id,
                               parent_step_run_id, parent_wait_attempt, depth, parent_item_index)
    VALUES ($1, $2, $3, $4::jsonb, $4::jsonb, $5, $6, $7, $8, $11)
    RETURNING id
  ), first_step AS (
    INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status, due_at)
    SELECT run.id, $2, 0, $9, $10, 'PENDING', now() FROM run
  )
  SELECT pg_notify('${STEP_READY_CHANNEL}', '') IS NULL AS notified FROM run`;

/**
 * Locks the unfinished descendants of run $1 (children, their children...), in id order, for a cancel
 * that cascades: after the run itself (locked first, as every transition does) and before any of the
 * run's steps are touched, so that a child ending meanwhile (which locks its own row, then wakes the
 * parent's step row) either finishes first or finds itself cancelled. FOR UPDATE re-checks the status
 * once a lock is granted, so a child that ended while we waited is left alone.
 */
export const LOCK_DESCENDANTS = `
  WITH RECURSIVE descendants AS (
    SELECT id, 1 AS level FROM workflow_runs WHERE parent_run_id = $1
    UNION ALL
    SELECT r.id, d.level + 1 FROM workflow_runs r JOIN descendants d ON r.parent_run_id = d.id
    WHERE d.level < 100
  )
  SELECT r.id, r.workspace_id FROM workflow_runs r
  WHERE r.id IN (SELECT id FROM descendants)
    AND r.status IN ('PENDING', 'RUNNING', 'WAITING', 'PAUSED')
  ORDER BY r.id
  FOR UPDATE`;

/* ---- Map items: the `map` step. ---- */

/**
 * The map step run $1 is still worker $2's (RUNNING under its lease): every map item statement writes
 * only then, so an owner whose lease was taken over (or whose run was cancelled) changes nothing.
 */
const MAP_OWNER = `SELECT 1 FROM step_runs WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING'`;

/**
 * Before a map step (step run $1, worker $2, attempt $3) takes items: items RUNNING belong to an
 * owner that died (only the step's owner runs items, and it is us now), so they wait again; items
 * FAILED in an earlier attempt of the step are queued again by this one (an automatic retry runs only
 * the failed items). $4 false leaves RUNNING items alone: those of a workflow sub-step are child runs
 * still going, which settle when they end.
 */
export const REQUEUE_MAP_ITEMS = `
  UPDATE map_items SET status = 'PENDING', started_at = NULL, error = NULL, map_attempt = $3
  WHERE step_run_id = $1 AND EXISTS (${MAP_OWNER})
    AND ((status = 'RUNNING' AND $4::boolean) OR (status = 'FAILED' AND map_attempt < $3))`;

/**
 * The items of map step $1 (worker $2; run $3, workspace $4, step index $5, attempt $6), $7 of them,
 * when it has none yet: one PENDING row per element. When the run's previous step run of the same
 * index failed (a manual retry of a failed map), the items it completed are copied COMPLETED with
 * their outputs, so that only its failed items run again. Does nothing when they exist.
 */
export const SEED_MAP_ITEMS = `
  WITH previous AS (
    SELECT s.id, s.status FROM step_runs s
    WHERE s.run_id = $3 AND s.step_index = $5 AND s.id <> $1
    ORDER BY s.seq DESC LIMIT 1
  ), kept AS (
    SELECT m.item_index, m.output, m.completed_at, m.attempts FROM map_items m
    WHERE m.step_run_id = (SELECT id FROM previous WHERE status = 'FAILED') AND m.status = 'COMPLETED'
  )
  INSERT INTO map_items (step_run_id, item_index, run_id, workspace_id, status, attempts, output,
                         completed_at, map_attempt)
  SELECT $1, g.i, $3, $4, CASE WHEN k.item_index IS NULL THEN 'PENDING' ELSE 'COMPLETED' END,
         COALESCE(k.attempts, 0), k.output, k.completed_at, $6
  FROM generate_series(0, $7::int - 1) AS g(i)
  LEFT JOIN kept k ON k.item_index = g.i
  WHERE EXISTS (${MAP_OWNER})
  ON CONFLICT (step_run_id, item_index) DO NOTHING`;

/**
 * Takes up to $3 waiting items of map step $1 (worker $2), lowest index first, marking them RUNNING:
 * the items beyond the step's concurrency stay PENDING rows until a slot frees. Only the step's owner
 * takes its items, so no two executors race for them.
 */
export const TAKE_MAP_ITEMS = `
  UPDATE map_items m SET status = 'RUNNING', attempts = m.attempts + 1, started_at = now()
  FROM (SELECT item_index FROM map_items
        WHERE step_run_id = $1 AND status = 'PENDING'
        ORDER BY item_index LIMIT $3) t
  WHERE m.step_run_id = $1 AND m.item_index = t.item_index AND EXISTS (${MAP_OWNER})
  RETURNING m.item_index, m.attempts`;

/**
 * Settles items of map step $1 (worker $2) in one statement, as they finished: each COMPLETED with
 * its output or FAILED with its error, and a MAP_ITEM_COMPLETED or MAP_ITEM_FAILED event each. The run
 * ($3, workspace $4) is locked first, as every statement that records a run's events does (the live
 * streams rely on a run's events committing in order), and must still be RUNNING with the step ours:
 * otherwise nothing is written, and the count returned (0) tells the step it lost the map. Only a
 * RUNNING item settles, so an item completes at most once.
 *
 * Per item: $5 index, $6 status, $7 output, $8 error, $9 duration ms; $10 the step's name.
 */
export const SETTLE_MAP_ITEMS = `
  WITH run AS (
    SELECT id FROM workflow_runs WHERE id = $3 AND status = 'RUNNING' FOR UPDATE
  ), owner AS (
    SELECT s.id FROM step_runs s, run
    WHERE s.id = $1 AND s.locked_by = $2 AND s.status = 'RUNNING'
  ), input AS (
    SELECT * FROM unnest($5::int[], $6::varchar[], $7::jsonb[], $8::text[], $9::int[])
      AS i(item_index, status, output, error, duration_ms)
  ), settled AS (
    UPDATE map_items m
    SET status = i.status, output = i.output, error = i.error, completed_at = now()
    FROM input i, owner
    WHERE m.step_run_id = $1 AND m.item_index = i.item_index AND m.status = 'RUNNING'
    RETURNING m.item_index, m.status, m.error, m.attempts, i.duration_ms, m.run_id
  ), events AS (
    INSERT INTO run_events (run_id, workspace_id, step_run_id, event_type, payload)
    SELECT $3, $4, $1,
           CASE WHEN s.status = 'COMPLETED' THEN 'MAP_ITEM_COMPLETED' ELSE 'MAP_ITEM_FAILED' END,
           jsonb_build_object('stepName', $10::text, 'itemIndex', s.item_index,
                              'attempts', s.attempts, 'durationMs', s.duration_ms)
             || CASE WHEN s.status = 'FAILED' THEN jsonb_build_object('error', s.error)
                     ELSE '{}'::jsonb END
    FROM settled s ORDER BY s.item_index
  ), ${ANNOUNCE_RUN_EVENTS('settled')}
  SELECT (SELECT count(*) FROM settled)::int AS settled, (SELECT count(*) FROM announced) AS announced`;

/** The items of map step $1 in order, with what they settled to: the map's output. */
export const MAP_ITEM_RESULTS = `
  SELECT item_index, status, output, error FROM map_items WHERE step_run_id = $1 ORDER BY item_index`;

/**
 * The child runs of map step $2 (of run $1) whose sub-step is a workflow, the latest one per item (a
 * retried item has several), with how they ended: the map settles its RUNNING items from them.
 */
export const MAP_CHILDREN = `
  SELECT DISTINCT ON (parent_item_index) parent_item_index, id, status, output, error
  FROM workflow_runs
  WHERE parent_run_id = $1 AND parent_step_run_id = $2 AND parent_item_index IS NOT NULL
  ORDER BY parent_item_index, created_at DESC, id DESC`;

/** Up to $2 waiting items of map step $1, lowest index first (read only: started with START_MAP_ITEM). */
export const PENDING_MAP_ITEMS = `
  SELECT item_index FROM map_items WHERE step_run_id = $1 AND status = 'PENDING'
  ORDER BY item_index LIMIT $2`;

/**
 * Marks item $2 of map step $1 RUNNING, in the transaction that records the step's outcome and
 * creates the item's child run, so that a RUNNING item of a workflow sub-step always has its child.
 */
export const START_MAP_ITEM = `
  UPDATE map_items SET status = 'RUNNING', attempts = attempts + 1, started_at = now()
  WHERE step_run_id = $1 AND item_index = $2 AND status = 'PENDING'`;
