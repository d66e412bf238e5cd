import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';

export interface WorkspaceRow {
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  updated_at: Date;
}

const WORKSPACE_COLUMNS = 'id, name, slug, created_at, updated_at';

/** The tenants. The database chooses a workspace's id and times (the columns' defaults). */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly db: Database) {}

  /** Raises the unique violation `workspaces_slug_key` when the slug is taken. */
  async insert(name: string, slug: string): Promise<WorkspaceRow> {
    const res = await this.db.query<WorkspaceRow>(
      `INSERT INTO workspaces (name, slug) VALUES ($1, $2) RETURNING ${WORKSPACE_COLUMNS}`,
      [name, slug],
    );
    return res.rows[0];
  }

  async get(id: string): Promise<WorkspaceRow | undefined> {
    const res = await this.db.query<WorkspaceRow>(
      `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1`,
      [id],
    );
    return res.rows[0];
  }
}
