import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';
import type { StepDefinition } from '../steps/step-definition';

export interface DefinitionRow {
  id: string;
  workspace_id: string;
  name: string;
  version: string;
  description: string | null;
  steps: StepDefinition[];
  /** Exact decimal (numeric as text); null when not given. */
  max_cost_usd: string | null;
  on_budget_exceeded: 'fail' | 'approval' | null;
  created_at: Date;
  updated_at: Date;
}

/** max_cost_usd as text: numeric would come back as a string anyway, now explicitly exact. */
const COLUMNS = `id, workspace_id, name, version, description, steps, max_cost_usd::text AS max_cost_usd,
  on_budget_exceeded, created_at, updated_at`;

/** Definitions are immutable: insert and read only. Every read is scoped by workspace first. */
@Injectable()
export class DefinitionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts a definition unless the workspace already holds `limit` of them (every version counts).
   * The workspace row lock serialises concurrent creations, so the limit holds under concurrency.
   */
  insert(
    workspaceId: string,
    d: {
      name: string;
      version: string;
      description?: string;
      stepsJson: string;
      maxCostUsd?: string;
      onBudgetExceeded?: string;
    },
    limit: number,
  ): Promise<DefinitionRow | 'limit'> {
    return this.db.transaction(async (client) => {
      await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
      const count = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM workflow_definitions WHERE workspace_id = $1',
        [workspaceId],
      );
      if (count.rows[0].n >= limit) return 'limit';
      const rows = await client.query<DefinitionRow>(
        `INSERT INTO workflow_definitions (workspace_id, name, version, description, steps,
                                           max_cost_usd, on_budget_exceeded)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [
          workspaceId,
          d.name,
          d.version,
          d.description ?? null,
          d.stepsJson,
          d.maxCostUsd ?? null,
          d.onBudgetExceeded ?? null,
        ],
      );
      return rows.rows[0];
    });
  }

  async list(workspaceId: string): Promise<DefinitionRow[]> {
    const res = await this.db.query<DefinitionRow>(
      `SELECT ${COLUMNS} FROM workflow_definitions WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`,
      [workspaceId],
    );
    return res.rows;
  }

  async getByNameVersion(
    workspaceId: string,
    name: string,
    version: string,
  ): Promise<DefinitionRow | undefined> {
    const res = await this.db.query<DefinitionRow>(
      `SELECT ${COLUMNS} FROM workflow_definitions WHERE workspace_id = $1 AND name = $2 AND version = $3`,
      [workspaceId, name, version],
    );
    return res.rows[0];
  }

  async get(workspaceId: string, id: string): Promise<DefinitionRow | undefined> {
    const res = await this.db.query<DefinitionRow>(
      `SELECT ${COLUMNS} FROM workflow_definitions WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return res.rows[0];
  }
}
