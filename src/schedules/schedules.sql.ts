/**
 * The SQL of schedules: the API's reads and writes (workspace first in each) and the scheduler's
 * claim. A run is never created here: the scheduler hands each fire to the run queue (RunQueue), the
 * one owner of run creation, inside the claim's transaction.
 */

export const SCHEDULE_COLUMNS = `id, workspace_id, definition_id, name, cron, timezone, input,
  overlap_policy, catchup_window_ms, jitter_ms, paused, next_fire_at, due_at, buffered_fire_at,
  last_fired_at, skipped_fires, created_at, updated_at`;

/**
 * Serialises creations in one workspace on its row, so that MAX_SCHEDULES_PER_WORKSPACE holds under
 * concurrency (as definitions do).
 */
export const LOCK_WORKSPACE = `SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE`;

export const COUNT_SCHEDULES = `SELECT count(*)::int AS n FROM schedules WHERE workspace_id = $1`;

/** The definition must be the workspace's: a schedule never starts another tenant's workflow. */
export const DEFINITION_EXISTS = `
  SELECT 1 FROM workflow_definitions WHERE workspace_id = $1 AND id = $2`;

/** A new schedule's id, taken before the insert: its first fire's jitter is derived from it. */
export const NEW_SCHEDULE_ID = `SELECT uuid_v7() AS id`;

export const INSERT_SCHEDULE = `
  INSERT INTO schedules (id, workspace_id, definition_id, name, cron, timezone, input,
                         overlap_policy, catchup_window_ms, jitter_ms, paused, next_fire_at, due_at)
  VALUES ($13, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  RETURNING ${SCHEDULE_COLUMNS}`;

export const GET_SCHEDULE = `
  SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE workspace_id = $1 AND id = $2`;

/** A PATCH reads the row locked: it waits for a claim of the schedule in progress, never races it. */
export const LOCK_SCHEDULE = `
  SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE workspace_id = $1 AND id = $2 FOR UPDATE`;

/** Writes every field a PATCH may change, with the fire times recomputed by the service. */
export const UPDATE_SCHEDULE = `
  UPDATE schedules SET name = $3, cron = $4, timezone = $5, input = $6, overlap_policy = $7,
         catchup_window_ms = $8, jitter_ms = $9, paused = $10, next_fire_at = $11, due_at = $12,
         buffered_fire_at = $13, updated_at = now()
  WHERE workspace_id = $1 AND id = $2
  RETURNING ${SCHEDULE_COLUMNS}`;

/**
 * A delete takes the row lock too: once it has returned, no claim holds the schedule, and none will
 * find it, so no run starts from it afterwards.
 */
export const DELETE_SCHEDULE = `
  DELETE FROM schedules WHERE workspace_id = $1 AND id = $2 RETURNING id`;

/**
 * Whether a run the schedule started is still going (the overlap policies): not ended yet
 * (`ended_status`, migration EndedStatus). An index-only probe of workflow_runs_schedule_active_idx.
 */
const RUN_ACTIVE = `EXISTS (
    SELECT 1 FROM workflow_runs r
    WHERE r.workspace_id = s.workspace_id AND r.schedule_id = s.id
      AND r.ended_status IS NULL)`;

const CLAIMED_COLUMNS = `s.id, s.workspace_id, s.definition_id, s.cron, s.timezone, s.input,
  s.overlap_policy, s.catchup_window_ms, s.jitter_ms, s.next_fire_at, s.due_at, s.buffered_fire_at`;

/**
 * The scheduler's claim: up to $2 schedules due at $1 (the scheduler's clock), earliest first, locked
 * FOR UPDATE SKIP LOCKED so that replicas claiming at once split them and none waits. The lock is held
 * until the claim's transaction has created the fires' runs and advanced `due_at`: another replica
 * sees the schedule again only once it is no longer due for that fire. Uses schedules_due_idx.
 */
export const CLAIM_DUE = `
  SELECT ${CLAIMED_COLUMNS}, ${RUN_ACTIVE} AS run_active
  FROM schedules s
  WHERE s.due_at <= $1 AND s.due_at IS NOT NULL AND NOT s.paused
  ORDER BY s.due_at
  LIMIT $2
  FOR UPDATE OF s SKIP LOCKED`;

/**
 * buffer_one's remembered fires whose schedule has no run going any more: claimed as above, oldest
 * first. Polled rather than told by the executor, so finishing a run stays the queue's business alone.
 */
export const CLAIM_BUFFERED = `
  SELECT ${CLAIMED_COLUMNS}
  FROM schedules s
  WHERE s.buffered_fire_at IS NOT NULL AND NOT s.paused AND NOT ${RUN_ACTIVE}
  ORDER BY s.buffered_fire_at
  LIMIT $1
  FOR UPDATE OF s SKIP LOCKED`;

/**
 * Advances the claimed schedules in one statement: $1 ids, $2 next fire times, $3 their due times
 * (with jitter), $4 the buffered fires, $5 the fire started now (null: none; last_fired_at never
 * moves back, GREATEST ignoring nulls), $6 the fires passed over.
 */
export const ADVANCE = `
  UPDATE schedules s SET next_fire_at = a.next_fire_at, due_at = a.due_at,
         buffered_fire_at = a.buffered_fire_at,
         last_fired_at = GREATEST(s.last_fired_at, a.fired_at),
         skipped_fires = s.skipped_fires + a.skipped
  FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[],
              $5::timestamptz[], $6::int[])
       AS a(id, next_fire_at, due_at, buffered_fire_at, fired_at, skipped)
  WHERE s.id = a.id`;

/** Clears started buffered fires ($1 ids, $2 their fire times). */
export const CLEAR_BUFFERED = `
  UPDATE schedules s SET buffered_fire_at = NULL,
         last_fired_at = GREATEST(s.last_fired_at, a.fired_at)
  FROM unnest($1::uuid[], $2::timestamptz[]) AS a(id, fired_at)
  WHERE s.id = a.id`;
