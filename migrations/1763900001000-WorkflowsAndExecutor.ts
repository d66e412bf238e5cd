import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Definitions, runs, step runs (the executor's queue lives on them), run events, and the webhook outbox
 * that the executor writes in the same transaction as a run's state change.
 *
 * The claim path reads only `step_runs_due_idx`, a partial index over rows that can become runnable
 * (PENDING, or WAITING on a timer). Finished rows are not in it, so history does not slow the claim.
 */
export class WorkflowsAndExecutor1763900001000 implements MigrationInterface {
  name = 'WorkflowsAndExecutor1763900001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_definitions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        version varchar(50) NOT NULL,
        description varchar(1000),
        steps jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_definitions_name_version_key UNIQUE (workspace_id, name, version)
      )`);
    await q.query(
      `CREATE INDEX workflow_definitions_workspace_idx ON workflow_definitions (workspace_id, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE workflow_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        definition_id uuid NOT NULL REFERENCES workflow_definitions(id),
        status varchar(16) NOT NULL DEFAULT 'PENDING',
        input jsonb NOT NULL DEFAULT '{}',
        state jsonb NOT NULL DEFAULT '{}',
        output jsonb,
        error text,
        idempotency_key varchar(255),
        current_step_index integer NOT NULL DEFAULT 0,
        steps_executed integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(
      `CREATE UNIQUE INDEX workflow_runs_idempotency_key ON workflow_runs (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX workflow_runs_list_idx ON workflow_runs (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX workflow_runs_status_idx ON workflow_runs (workspace_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX workflow_runs_definition_idx ON workflow_runs (workspace_id, definition_id, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE step_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL,
        step_index integer NOT NULL,
        step_name varchar(100) NOT NULL,
        step_type varchar(20) NOT NULL,
        status varchar(16) NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        output jsonb,
        error text,
        due_at timestamptz,
        wake_reason varchar(16),
        signal jsonb,
        locked_by text,
        lock_expires_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX step_runs_run_idx ON step_runs (run_id, seq)`);
    await q.query(
      `CREATE INDEX step_runs_due_idx ON step_runs (due_at) WHERE status IN ('PENDING', 'WAITING') AND due_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX step_runs_lease_idx ON step_runs (lock_expires_at) WHERE status = 'RUNNING'`,
    );

    await q.query(`
      CREATE TABLE run_events (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL,
        step_run_id uuid,
        event_type varchar(40) NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX run_events_run_idx ON run_events (run_id, seq)`);

    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        secret text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL,
        message_id varchar(64) NOT NULL,
        event_type varchar(40) NOT NULL,
        run_id uuid,
        body jsonb NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        locked_by text,
        lock_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
    await q.query(`DROP TABLE run_events`);
    await q.query(`DROP TABLE step_runs`);
    await q.query(`DROP TABLE workflow_runs`);
    await q.query(`DROP TABLE workflow_definitions`);
  }
}
