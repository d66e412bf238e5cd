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
}
