import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';
import type { OverlapPolicy } from './fire-plan';
import * as SQL from './schedules.sql';

export interface ScheduleRow {
  id: string;
  workspace_id: string;
  definition_id: string;
  name: string | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  overlap_policy: OverlapPolicy;
  /** bigint: read as a string. */
  catchup_window_ms: string;
  jitter_ms: number;
  paused: boolean;
  next_fire_at: Date | null;
  due_at: Date | null;
  buffered_fire_at: Date | null;
  last_fired_at: Date | null;
  /** bigint: read as a string. */
  skipped_fires: string;
  created_at: Date;
  updated_at: Date;
}

/** The fields a create or an update writes. */
export interface ScheduleFields {
  name: string | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  overlapPolicy: OverlapPolicy;
  catchupWindowMs: number;
  jitterMs: number;
  paused: boolean;
  nextFireAt: Date | null;
  dueAt: Date | null;
}

/** Schedules as the API reads and writes them; every statement takes the workspace first. */
@Injectable()
export class SchedulesRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts unless the workspace holds `limit` schedules, or the definition is not the workspace's.
   * `timing` gives the first fire from the new schedule's id (its jitter depends on it).
   */
  insert(
    workspaceId: string,
    definitionId: string,
    fields: Omit<ScheduleFields, 'nextFireAt' | 'dueAt'>,
    timing: (id: string) => Pick<ScheduleFields, 'nextFireAt' | 'dueAt'>,
    limit: number,
  ): Promise<ScheduleRow | 'limit' | 'no-definition'> {
    return this.db.transaction(async (client) => {
      const def = await client.query(SQL.DEFINITION_EXISTS, [workspaceId, definitionId]);
      if (!def.rowCount) return 'no-definition';
      await client.query(SQL.LOCK_WORKSPACE, [workspaceId]);
      const count = await client.query<{ n: number }>(SQL.COUNT_SCHEDULES, [workspaceId]);
      if (count.rows[0].n >= limit) return 'limit';
      const { id } = (await client.query<{ id: string }>(SQL.NEW_SCHEDULE_ID)).rows[0];
      const f = { ...fields, ...timing(id) };
      const res = await client.query<ScheduleRow>(SQL.INSERT_SCHEDULE, [
        workspaceId,
        definitionId,
        f.name,
        f.cron,
        f.timezone,
        JSON.stringify(f.input),
        f.overlapPolicy,
        f.catchupWindowMs,
        f.jitterMs,
        f.paused,
        f.nextFireAt,
        f.dueAt,
        id,
      ]);
      return res.rows[0];
    });
  }

  async list(
    workspaceId: string,
    definitionId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: ScheduleRow[]; total: number }> {
    const where = definitionId === undefined ? '' : 'AND definition_id = $2';
    const params: unknown[] =
      definitionId === undefined ? [workspaceId] : [workspaceId, definitionId];
    const n = params.length;
    const [rows, count] = await Promise.all([
      this.db.query<ScheduleRow>(
        `SELECT ${SQL.SCHEDULE_COLUMNS} FROM schedules WHERE workspace_id = $1 ${where}
         ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit, offset],
      ),
      this.db.query<{ total: string }>(
        `SELECT count(*) AS total FROM schedules WHERE workspace_id = $1 ${where}`,
        params,
      ),
    ]);
    return { rows: rows.rows, total: Number(count.rows[0].total) };
  }

  async get(workspaceId: string, id: string): Promise<ScheduleRow | undefined> {
    return (await this.db.query<ScheduleRow>(SQL.GET_SCHEDULE, [workspaceId, id])).rows[0];
  }

  /**
   * Reads the schedule locked, lets `change` compute its new fields, and writes them: undefined when
   * the workspace has no such schedule. `change` may throw (a bad cron): nothing is written then.
   */
  update(
    workspaceId: string,
    id: string,
    change: (row: ScheduleRow) => ScheduleFields & { bufferedFireAt: Date | null },
  ): Promise<ScheduleRow | undefined> {
    return this.db.transaction(async (client) => {
      const current = (await client.query<ScheduleRow>(SQL.LOCK_SCHEDULE, [workspaceId, id]))
        .rows[0];
      if (!current) return undefined;
      const f = change(current);
      const res = await client.query<ScheduleRow>(SQL.UPDATE_SCHEDULE, [
        workspaceId,
        id,
        f.name,
        f.cron,
        f.timezone,
        JSON.stringify(f.input),
        f.overlapPolicy,
        f.catchupWindowMs,
        f.jitterMs,
        f.paused,
        f.nextFireAt,
        f.dueAt,
        f.bufferedFireAt,
      ]);
      return res.rows[0];
    });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const res = await this.db.query(SQL.DELETE_SCHEDULE, [workspaceId, id]);
    return (res.rowCount ?? 0) > 0;
  }
}
