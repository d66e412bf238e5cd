import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approval requests (one per execution of an `approval` step) and cost records (one per completed LLM
 * call). Money is `numeric`: prices and costs are stored and summed exactly, never as floating point.
 *
 * The cost summary reads `cost_records_workspace_time_idx` only: the index covers every column the
 * summary needs, so a window over many records is an index-only scan.
 */
export class ApprovalsAndCosts1763900002000 implements MigrationInterface {
  name = 'ApprovalsAndCosts1763900002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE approval_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        step_run_id uuid NOT NULL REFERENCES step_runs(id) ON DELETE CASCADE,
        step_name varchar(100) NOT NULL,
        content_key varchar(200) NOT NULL,
        content jsonb NOT NULL,
        prompt text NOT NULL DEFAULT '',
        decision varchar(16),
        decided_by varchar(255),
        decided_at timestamptz,
        comment text,
        edited_content jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT approval_requests_decision_check
          CHECK (decision IS NULL OR decision IN ('approved', 'rejected', 'edited'))
      )`);
    await q.query(
      `CREATE INDEX approval_requests_workspace_idx ON approval_requests (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX approval_requests_pending_idx ON approval_requests (workspace_id, created_at DESC, id DESC) WHERE decision IS NULL`,
    );
    // Rejections of one approval step in one run decide whether it may regenerate again.
    await q.query(
      `CREATE INDEX approval_requests_run_step_idx ON approval_requests (run_id, step_name, created_at)`,
    );

    await q.query(`
      CREATE TABLE cost_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        step_run_id uuid REFERENCES step_runs(id) ON DELETE SET NULL,
        step_name varchar(100) NOT NULL,
        model varchar(200) NOT NULL,
        input_tokens integer NOT NULL CHECK (input_tokens >= 0),
        output_tokens integer NOT NULL CHECK (output_tokens >= 0),
        input_price_per_million numeric NOT NULL CHECK (input_price_per_million >= 0),
        output_price_per_million numeric NOT NULL CHECK (output_price_per_million >= 0),
        cost_usd numeric NOT NULL CHECK (cost_usd >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX cost_records_workspace_time_idx ON cost_records (workspace_id, created_at)
       INCLUDE (run_id, model, input_tokens, output_tokens, cost_usd)`,
    );
    await q.query(`CREATE INDEX cost_records_run_idx ON cost_records (run_id, created_at, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE cost_records`);
    await q.query(`DROP TABLE approval_requests`);
  }
}
