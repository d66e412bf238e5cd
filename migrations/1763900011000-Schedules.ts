import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules (README "Schedules"): a row per schedule whose `due_at` the scheduler claims with
 * FOR UPDATE SKIP LOCKED, as the executor claims step runs, so that each fire starts one run however
 * many replicas poll. `next_fire_at` is the fire time the cron expression gives (the run's idempotency
 * key is derived from it); `due_at` is that time plus the schedule's jitter, null while paused or when
 * the expression fires no more. `buffered_fire_at` is the one fire the `buffer_one` policy remembers
 * while the schedule's previous run is still going.
 *
 * `workflow_runs.schedule_id` names the schedule that started a run (null for runs started through the
 * API). No foreign key: deleting a schedule leaves its runs and their `scheduleId` as they were.
 */
export class Schedules1763900011000 implements MigrationInterface {
  name = 'Schedules1763900011000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE schedules (
        id uuid PRIMARY KEY DEFAULT uuid_v7(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        definition_id uuid NOT NULL REFERENCES workflow_definitions(id),
        name varchar(200),
        cron varchar(255) NOT NULL,
        timezone varchar(100) NOT NULL,
        input jsonb NOT NULL DEFAULT '{}',
        overlap_policy varchar(16) NOT NULL
          CHECK (overlap_policy IN ('skip', 'buffer_one', 'allow')),
        catchup_window_ms bigint NOT NULL,
        jitter_ms integer NOT NULL DEFAULT 0,
        paused boolean NOT NULL DEFAULT false,
        next_fire_at timestamptz,
        due_at timestamptz,
        buffered_fire_at timestamptz,
        last_fired_at timestamptz,
        skipped_fires bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX schedules_list_idx ON schedules (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX schedules_definition_idx ON schedules (workspace_id, definition_id, created_at DESC, id DESC)`,
    );
    // The scheduler's claim looks across workspaces for the earliest due rows (like step_runs_due_idx):
    // the one index not led by workspace_id, because no query of it names a workspace.
    await q.query(
      `CREATE INDEX schedules_due_idx ON schedules (due_at) WHERE due_at IS NOT NULL AND NOT paused`,
    );
    // buffer_one's remembered fires, found when the run they wait for has ended.
    await q.query(
      `CREATE INDEX schedules_buffered_idx ON schedules (buffered_fire_at) WHERE buffered_fire_at IS NOT NULL AND NOT paused`,
    );
    await q.query(`ALTER TABLE workflow_runs ADD COLUMN schedule_id uuid`);
    // The run list's scheduleId filter, and the overlap check (is a run of this schedule still going?).
    await q.query(
      `CREATE INDEX workflow_runs_schedule_idx ON workflow_runs (workspace_id, schedule_id, created_at DESC, id DESC) WHERE schedule_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX workflow_runs_schedule_active_idx ON workflow_runs (workspace_id, schedule_id)
       WHERE schedule_id IS NOT NULL AND status IN ('PENDING', 'RUNNING', 'WAITING', 'PAUSED')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX workflow_runs_schedule_active_idx`);
    await q.query(`DROP INDEX workflow_runs_schedule_idx`);
    await q.query(`ALTER TABLE workflow_runs DROP COLUMN schedule_id`);
    await q.query(`DROP TABLE schedules`);
  }
}
