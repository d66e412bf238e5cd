import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database } from '../common/database';
import * as SQL from './queue.sql';

/** A definition a `workflow` step may start, with its first step. */
export interface ChildDefinition {
  id: string;
  name: string;
  version: string;
  firstName: string;
  firstType: string;
}

/** One run of a lineage: the run, then its parent, and so on up to a root run. */
export interface LineageRun {
  id: string;
  definitionId: string;
  depth: number;
}

/** A child run to start in the transaction recording the parent step's outcome. */
export interface NewChildRun {
  id: string;
  workspaceId: string;
  definition: ChildDefinition;
  input: Record<string, unknown>;
  parentRunId: string;
  parentStepRunId: string;
  /** The attempt of the parent step that waits for the child; null when it does not wait. */
  waitAttempt: number | null;
  depth: number;
  /** The `map` item the child runs, when a map's sub-step started it. */
  itemIndex?: number;
}

/**
 * Child runs, for the `workflow` step: the reads it makes before deciding (the definition to start,
 * the run's lineage for the cycle and depth checks) and the start itself, a write in the outcome's
 * transaction. A child's end wakes the waiting step from the statements that end runs (WAKE_PARENTS).
 */
@Injectable()
export class ChildRuns {
  constructor(private readonly db: Database) {}

  /** The workspace's definition by id, or by name and version; undefined when it has none. */
  async definition(
    workspaceId: string,
    ref: { id?: string; name?: string; version?: string },
  ): Promise<ChildDefinition | undefined> {
    const res = await this.db.query<{
      id: string;
      name: string;
      version: string;
      first_name: string;
      first_type: string;
    }>(SQL.CHILD_DEFINITION, [workspaceId, ref.id ?? null, ref.name ?? null, ref.version ?? null]);
    const row = res.rows[0];
    return (
      row && {
        id: row.id,
        name: row.name,
        version: row.version,
        firstName: row.first_name,
        firstType: row.first_type,
      }
    );
  }

  /** The run and its ancestors, nearest first. */
  async lineage(runId: string): Promise<LineageRun[]> {
    const res = await this.db.query<{ id: string; definition_id: string; depth: number }>(
      SQL.RUN_LINEAGE,
      [runId],
    );
    return res.rows.map((r) => ({ id: r.id, definitionId: r.definition_id, depth: r.depth }));
  }

  /** Inserts the child run and its first step, due now, in the caller's transaction. */
  async start(client: PoolClient, child: NewChildRun): Promise<void> {
    await client.query(SQL.INSERT_CHILD_RUN, [
      child.id,
      child.workspaceId,
      child.definition.id,
      JSON.stringify(child.input),
      child.parentRunId,
      child.parentStepRunId,
      child.waitAttempt,
      child.depth,
      child.definition.firstName,
      child.definition.firstType,
      child.itemIndex ?? null,
    ]);
  }
}
