import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';
import { RUN_COLUMNS } from '../queue/queue.sql';
import type { RunRow } from '../queue/run-queue';

export interface StepRunRow {
  id: string;
  step_index: number;
  step_name: string;
  step_type: string;
  status: string;
  attempt: number;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface EventRow {
  id: string;
  run_id: string;
  step_run_id: string | null;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

const RUN_COLUMNS_OF_R = RUN_COLUMNS.split(',')
  .map((c) => `r.${c.trim()}`)
  .join(', ');

/** A statement with its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The run list's two statements for a filter: a page and the total. Deferred join: the page's ids
 * come from the covering index alone (the offset is walked there, never in the table), then only
 * those rows are read. Exported so that the query-plan test plans exactly what the API runs.
 */
export function runListStatements(
  workspaceId: string,
  filter: { status?: string; definitionId?: string },
  limit: number,
  offset: number,
): { page: Statement; count: Statement } {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  if (filter.status) {
    params.push(filter.status);
    where.push(`status = $${params.length}`);
  }
  if (filter.definitionId) {
    params.push(filter.definitionId);
    where.push(`definition_id = $${params.length}`);
  }
  const clause = where.join(' AND ');
  return {
    page: {
      text: `SELECT ${RUN_COLUMNS_OF_R} FROM workflow_runs r
         JOIN (SELECT id FROM workflow_runs WHERE ${clause}
               ORDER BY created_at DESC, id DESC
               LIMIT $${params.length + 1} OFFSET $${params.length + 2}) page ON page.id = r.id
         ORDER BY r.created_at DESC, r.id DESC`,
      values: [...params, limit, offset],
    },
    count: { text: `SELECT count(*) AS total FROM workflow_runs WHERE ${clause}`, values: params },
  };
}

/** One page of a run's events ($1 run, $2 workspace, $3 limit, $4 offset), in order. */
export const RUN_EVENTS_PAGE = `
  SELECT id, run_id, step_run_id, event_type, payload, created_at FROM run_events
  WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq LIMIT $3 OFFSET $4`;

export const RUN_EVENTS_COUNT = `
  SELECT count(*) AS total FROM run_events WHERE run_id = $1 AND workspace_id = $2`;

/** A run's step runs ($1 run, $2 workspace), in the order they were created. */
export const RUN_STEPS = `
  SELECT id, step_index, step_name, step_type, status, attempt, output, error, started_at,
         completed_at
  FROM step_runs WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq`;

/** Run reads: the list, one run, its events and its step runs. Transitions are the queue's (RunQueue). */
@Injectable()
export class RunsRepository {
  constructor(private readonly db: Database) {}

  async list(
    workspaceId: string,
    filter: { status?: string; definitionId?: string },
    limit: number,
    offset: number,
  ): Promise<{ rows: RunRow[]; total: number }> {
    const { page, count } = runListStatements(workspaceId, filter, limit, offset);
    const [rows, total] = await Promise.all([
      this.db.query<RunRow>(page.text, page.values),
      this.db.query<{ total: string }>(count.text, count.values),
    ]);
    return { rows: rows.rows, total: Number(total.rows[0].total) };
  }

  async get(workspaceId: string, id: string): Promise<RunRow | undefined> {
    const res = await this.db.query<RunRow>({
      name: 'runs_get',
      text: `SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE workspace_id = $1 AND id = $2`,
      values: [workspaceId, id],
    });
    return res.rows[0];
  }

  async exists(workspaceId: string, id: string): Promise<boolean> {
    const res = await this.db.query(
      'SELECT 1 FROM workflow_runs WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async events(
    workspaceId: string,
    runId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: EventRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db.query<EventRow>(RUN_EVENTS_PAGE, [runId, workspaceId, limit, offset]),
      this.db.query<{ total: string }>(RUN_EVENTS_COUNT, [runId, workspaceId]),
    ]);
    return { rows: rows.rows, total: Number(count.rows[0].total) };
  }

  async steps(workspaceId: string, runId: string): Promise<StepRunRow[]> {
    const res = await this.db.query<StepRunRow>(RUN_STEPS, [runId, workspaceId]);
    return res.rows;
  }
}
