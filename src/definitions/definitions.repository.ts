import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { StepDefinition } from './steps/step-types';

export interface DefinitionRow {
  id: string;
  workspace_id: string;
  name: string;
  version: string;
  description: string | null;
  steps: StepDefinition[];
  created_at: Date;
  updated_at: Date;
}

/** Definitions are immutable: insert and read only. Every read is scoped by workspace first. */
@Injectable()
export class DefinitionsRepository {
  constructor(private readonly db: DataSource) {}

  async insert(
    workspaceId: string,
    d: { name: string; version: string; description?: string; steps: StepDefinition[] },
  ): Promise<DefinitionRow> {
    const rows = await this.db.query<DefinitionRow[]>(
      `INSERT INTO workflow_definitions (workspace_id, name, version, description, steps)
       VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [workspaceId, d.name, d.version, d.description ?? null, JSON.stringify(d.steps)],
    );
    return rows[0];
  }

  list(workspaceId: string): Promise<DefinitionRow[]> {
    return this.db.query<DefinitionRow[]>(
      `SELECT * FROM workflow_definitions WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`,
      [workspaceId],
    );
  }

  async get(workspaceId: string, id: string): Promise<DefinitionRow | undefined> {
    const rows = await this.db.query<DefinitionRow[]>(
      `SELECT * FROM workflow_definitions WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0];
  }
}
