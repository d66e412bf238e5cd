import { Injectable } from '@nestjs/common';
import { Database, type Queryable } from '../common/database';

export interface NewCostRecord {
  workspaceId: string;
  runId: string;
  stepRunId: string;
  stepName: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Exact decimal strings, USD per million tokens. */
  inputPerMillion: string;
  outputPerMillion: string;
  /** When the provider answered. */
  createdAt: Date;
}

export interface CostCallRow {
  step_name: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: string;
  created_at: Date;
}

export interface CostTotalsRow {
  cost_usd: string;
  input_tokens: string;
  output_tokens: string;
  runs: string;
}

export interface ModelCostRow {
  model: string;
  cost_usd: string;
  input_tokens: string;
  output_tokens: string;
  calls: string;
}

export interface SeriesPointRow extends ModelCostRow {
  start: Date;
}

export interface DefinitionCostRow {
  definition_id: string;
  name: string;
  version: string;
  cost_usd: string;
  input_tokens: string;
  output_tokens: string;
  calls: string;
  runs: string;
}

/** The records of a workspace created in [from, to]: the summary's window, read from the time index. */
const WINDOW = 'c.workspace_id = $1 AND c.created_at >= $2 AND c.created_at <= $3';

/**
 * Cost records, one per completed LLM call. Money is numeric end to end: the cost is computed from the
 * stored prices in SQL (a multiplication by 0.000001 is exact, a division would round) and sums are
 * taken in SQL; values become JavaScript numbers only in the answer. Bigint sums come back as strings.
 */
@Injectable()
export class CostsRepository {
  constructor(private readonly db: Database) {}

  /** Inserts a record in the caller's transaction (the LLM step's outcome); returns the cost. */
  async insert(client: Queryable, r: NewCostRecord): Promise<string> {
    const res = await client.query(
      `INSERT INTO cost_records (workspace_id, run_id, step_run_id, step_name, model, input_tokens,
                                 output_tokens, input_price_per_million, output_price_per_million,
                                 cost_usd, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::int, $7::int, $8::numeric, $9::numeric,
               ($6::int::numeric * $8::numeric + $7::int::numeric * $9::numeric) * 0.000001, $10)
       RETURNING cost_usd`,
      [
        r.workspaceId,
        r.runId,
        r.stepRunId,
        r.stepName,
        r.model,
        r.inputTokens,
        r.outputTokens,
        r.inputPerMillion,
        r.outputPerMillion,
        r.createdAt,
      ],
    );
    return (res.rows[0] as { cost_usd: string }).cost_usd;
  }

  async runExists(workspaceId: string, runId: string): Promise<boolean> {
    const res = await this.db.query(
      'SELECT 1 FROM workflow_runs WHERE workspace_id = $1 AND id = $2',
      [workspaceId, runId],
    );
    return (res.rowCount ?? 0) > 0;
  }

  /** The run's calls in the order they completed, and their totals. */
  async runCost(
    workspaceId: string,
    runId: string,
  ): Promise<{ totals: CostTotalsRow; calls: CostCallRow[] }> {
    const [totals, calls] = await Promise.all([
      this.db.query<CostTotalsRow>(
        `SELECT COALESCE(sum(cost_usd), 0)::text AS cost_usd,
                COALESCE(sum(input_tokens), 0)::text AS input_tokens,
                COALESCE(sum(output_tokens), 0)::text AS output_tokens,
                count(DISTINCT run_id)::text AS runs
         FROM cost_records WHERE workspace_id = $1 AND run_id = $2`,
        [workspaceId, runId],
      ),
      this.db.query<CostCallRow>(
        `SELECT step_name, model, input_tokens, output_tokens, cost_usd::text AS cost_usd, created_at
         FROM cost_records WHERE workspace_id = $1 AND run_id = $2
         ORDER BY created_at, seq`,
        [workspaceId, runId],
      ),
    ]);
    return { totals: totals.rows[0], calls: calls.rows };
  }

  /**
   * The run's descendants (child runs of its `workflow` steps, their children...), oldest first, each
   * with its own totals, then their calls, and the sums over the run and all of them. Each call is
   * recorded once, on the run that made it, so the workspace summary counts it once.
   */
  async descendantCosts(
    workspaceId: string,
    runId: string,
  ): Promise<{
    runs: Array<CostTotalsRow & { id: string; parent_run_id: string }>;
    calls: Array<CostCallRow & { run_id: string }>;
    totals: CostTotalsRow;
  }> {
    const runs = await this.db.query<CostTotalsRow & { id: string; parent_run_id: string }>(
      `WITH RECURSIVE d AS (
         SELECT id, parent_run_id, created_at, 1 AS level FROM workflow_runs
         WHERE workspace_id = $1 AND parent_run_id = $2
         UNION ALL
         SELECT r.id, r.parent_run_id, r.created_at, d.level + 1
         FROM workflow_runs r JOIN d ON r.parent_run_id = d.id
         WHERE r.workspace_id = $1 AND d.level < 100
       )
       SELECT d.id, d.parent_run_id, COALESCE(sum(c.cost_usd), 0)::text AS cost_usd,
              COALESCE(sum(c.input_tokens), 0)::text AS input_tokens,
              COALESCE(sum(c.output_tokens), 0)::text AS output_tokens, '1' AS runs
       FROM d LEFT JOIN cost_records c ON c.workspace_id = $1 AND c.run_id = d.id
       GROUP BY d.id, d.parent_run_id, d.created_at
       ORDER BY d.created_at, d.id`,
      [workspaceId, runId],
    );
    const ids = runs.rows.map((r) => r.id);
    const [calls, totals] = await Promise.all([
      ids.length === 0
        ? Promise.resolve({ rows: [] as Array<CostCallRow & { run_id: string }> })
        : this.db.query<CostCallRow & { run_id: string }>(
            `SELECT run_id, step_name, model, input_tokens, output_tokens, cost_usd::text AS cost_usd,
                    created_at
             FROM cost_records WHERE workspace_id = $1 AND run_id = ANY ($2::uuid[])
             ORDER BY created_at, seq`,
            [workspaceId, ids],
          ),
      this.db.query<CostTotalsRow>(
        `SELECT COALESCE(sum(cost_usd), 0)::text AS cost_usd,
                COALESCE(sum(input_tokens), 0)::text AS input_tokens,
                COALESCE(sum(output_tokens), 0)::text AS output_tokens,
                count(DISTINCT run_id)::text AS runs
         FROM cost_records WHERE workspace_id = $1 AND run_id = ANY ($2::uuid[])`,
        [workspaceId, [runId, ...ids]],
      ),
    ]);
    return { runs: runs.rows, calls: calls.rows, totals: totals.rows[0] };
  }

  /** Totals and per-model sums of the records created in [from, to], most expensive model first. */
  async summary(
    workspaceId: string,
    from: Date,
    to: Date,
  ): Promise<{ totals: CostTotalsRow; byModel: ModelCostRow[] }> {
    const params = [workspaceId, from, to];
    const window = 'workspace_id = $1 AND created_at >= $2 AND created_at <= $3';
    const [totals, byModel] = await Promise.all([
      this.db.query<CostTotalsRow>(
        `SELECT COALESCE(sum(cost_usd), 0)::text AS cost_usd,
                COALESCE(sum(input_tokens), 0)::text AS input_tokens,
                COALESCE(sum(output_tokens), 0)::text AS output_tokens,
                count(DISTINCT run_id)::text AS runs
         FROM cost_records WHERE ${window}`,
        params,
      ),
      this.db.query<ModelCostRow>(
        `SELECT model, sum(cost_usd)::text AS cost_usd, sum(input_tokens)::text AS input_tokens,
                sum(output_tokens)::text AS output_tokens, count(*)::text AS calls
         FROM cost_records WHERE ${window}
         GROUP BY model
         ORDER BY sum(cost_usd) DESC, model`,
        params,
      ),
    ]);
    return { totals: totals.rows[0], byModel: byModel.rows };
  }

  /**
   * Per bucket (whole UTC days or hours) and model, the sums of the records created in [from, to], by
   * start then model; buckets without records are absent. The same window and sums as the summary, so
   * that the points add up to it exactly.
   */
  async series(
    workspaceId: string,
    from: Date,
    to: Date,
    bucket: 'day' | 'hour',
  ): Promise<SeriesPointRow[]> {
    const res = await this.db.query<SeriesPointRow>(
      `SELECT date_trunc($4, c.created_at, 'UTC') AS start, c.model,
              sum(c.cost_usd)::text AS cost_usd, sum(c.input_tokens)::text AS input_tokens,
              sum(c.output_tokens)::text AS output_tokens, count(*)::text AS calls
       FROM cost_records c WHERE ${WINDOW}
       GROUP BY 1, 2
       ORDER BY 1, 2`,
      [workspaceId, from, to, bucket],
    );
    return res.rows;
  }

  /**
   * Per definition version, the sums of the records created in [from, to], most expensive first. The
   * runs and definitions are joined by id within the workspace: a record names its run, a run its
   * definition version.
   */
  async byDefinition(workspaceId: string, from: Date, to: Date): Promise<DefinitionCostRow[]> {
    const res = await this.db.query<DefinitionCostRow>(
      `SELECT d.id AS definition_id, d.name, d.version,
              sum(c.cost_usd)::text AS cost_usd, sum(c.input_tokens)::text AS input_tokens,
              sum(c.output_tokens)::text AS output_tokens, count(*)::text AS calls,
              count(DISTINCT c.run_id)::text AS runs
       FROM cost_records c
       JOIN workflow_runs r ON r.id = c.run_id AND r.workspace_id = c.workspace_id
       JOIN workflow_definitions d ON d.id = r.definition_id AND d.workspace_id = r.workspace_id
       WHERE ${WINDOW}
       GROUP BY d.id, d.name, d.version
       ORDER BY sum(c.cost_usd) DESC, d.name, d.version, d.id`,
      [workspaceId, from, to],
    );
    return res.rows;
  }
}
