import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LLM budgets (README "Budgets").
 *
 * `workspace_budgets`: a workspace's monthly LLM budget, one row while it has one (PUT
 * /v1/workspaces/current/budget with null deletes it). numeric(16,6): whole micro-dollars up to the
 * largest accepted limit (1,000,000,000 USD).
 *
 * `budget_reservations`: what an LLM step execution in flight may still spend, written before each
 * provider request under the workspace's advisory lock and deleted in the transaction that records
 * the step's outcome with its cost records. A reservation counts only while its step run is RUNNING
 * under the lease of the worker that made it (`worker_id`), so one left by a process that died stops
 * counting when the step's lease expires. The index serves the one read, a workspace's reservations.
 *
 * `budget_spend`: the recorded cost of a budgeted workspace in one calendar month (UTC), so that the
 * check before each call reads one row instead of summing the month's records. A row is written only
 * under the workspace's advisory lock, with the exact sum of the month's records, after a `FOR UPDATE`
 * of the workspace row has waited for every transaction still inserting cost records (their foreign
 * key holds a KEY SHARE lock on it); from then on the deferred trigger `cost_records_budget_spend`
 * keeps it equal to that sum, at the commit of each transaction that inserts, moves or deletes a
 * record of the month. Workspaces without a row (no budget) pay only the trigger's empty UPDATE: no
 * row is locked.
 *
 * `workflow_definitions.max_cost_usd` / `on_budget_exceeded`: the run-level budget of a definition's
 * runs and what exceeding a budget does (`fail`, `approval`); null when not given.
 */
export class Budgets1763900014000 implements MigrationInterface {
  name = 'Budgets1763900014000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspace_budgets (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        monthly_limit_usd numeric(16,6) NOT NULL CHECK (monthly_limit_usd > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE budget_reservations (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        step_run_id uuid NOT NULL REFERENCES step_runs(id) ON DELETE CASCADE,
        step_name varchar(100) NOT NULL,
        worker_id text NOT NULL,
        amount_usd numeric NOT NULL CHECK (amount_usd >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX budget_reservations_workspace_idx ON budget_reservations (workspace_id)`,
    );
    await q.query(`
      CREATE TABLE budget_spend (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        period_start timestamptz NOT NULL,
        spent_usd numeric NOT NULL,
        PRIMARY KEY (workspace_id, period_start)
      )`);
    await q.query(`
      CREATE FUNCTION budget_spend_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE budget_spend SET spent_usd = spent_usd - OLD.cost_usd
          WHERE workspace_id = OLD.workspace_id
            AND period_start = date_trunc('month', OLD.created_at, 'UTC');
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          UPDATE budget_spend SET spent_usd = spent_usd + NEW.cost_usd
          WHERE workspace_id = NEW.workspace_id
            AND period_start = date_trunc('month', NEW.created_at, 'UTC');
        END IF;
        RETURN NULL;
      END
      $$`);
    // Deferred to the commit: the row is locked for the commit only, not for the whole transaction.
    await q.query(`
      CREATE CONSTRAINT TRIGGER cost_records_budget_spend
        AFTER INSERT OR DELETE OR UPDATE OF cost_usd, created_at, workspace_id ON cost_records
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION budget_spend_track()`);
    await q.query(`
      ALTER TABLE workflow_definitions
        ADD COLUMN max_cost_usd numeric(16,6) CHECK (max_cost_usd > 0),
        ADD COLUMN on_budget_exceeded varchar(16)
          CHECK (on_budget_exceeded IN ('fail', 'approval'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workflow_definitions DROP COLUMN max_cost_usd, DROP COLUMN on_budget_exceeded`);
    await q.query(`DROP TRIGGER cost_records_budget_spend ON cost_records`);
    await q.query(`DROP FUNCTION budget_spend_track()`);
    await q.query(`DROP TABLE budget_spend`);
    await q.query(`DROP TABLE budget_reservations`);
    await q.query(`DROP TABLE workspace_budgets`);
  }
}
