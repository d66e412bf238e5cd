import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { Database } from '../common/database';
import * as SQL from './queue.sql';

/** The map step run that owns the items, and the worker holding its lease. */
export interface MapOwner {
  stepRunId: string;
  workerId: string;
  runId: string;
  workspaceId: string;
}

/** An item as it finished executing, to be settled. */
export interface ItemResult {
  index: number;
  status: 'COMPLETED' | 'FAILED';
  output: Record<string, unknown> | null;
  error: string | null;
  durationMs: number;
}

export interface SettledItem {
  index: number;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
  output: Record<string, unknown> | null;
  error: string | null;
}

/**
 * The items of `map` steps, one row each (`map_items`): seeded when the step first executes, taken
 * a few at a time as its concurrency allows, settled in batches. Every write checks that the map step
 * is still the caller's (RUNNING under its lease), so an owner that lost the step writes nothing.
 */
@Injectable()
export class MapItems {
  constructor(private readonly db: Database) {}

  /**
   * Makes the step's items ready to take: re-queues those of a dead owner and, from a later attempt,
   * the failed ones; seeds `count` rows the first time (copying a failed predecessor's completed ones).
   */
  async prepare(
    owner: MapOwner,
    stepIndex: number,
    attempt: number,
    count: number,
    requeueRunning = true,
  ): Promise<void> {
    await this.db.query({ name: 'map_requeue', text: SQL.REQUEUE_MAP_ITEMS }, [
      owner.stepRunId,
      owner.workerId,
      attempt,
      requeueRunning,
    ]);
    await this.db.query({ name: 'map_seed', text: SQL.SEED_MAP_ITEMS }, [
      owner.stepRunId,
      owner.workerId,
      owner.runId,
      owner.workspaceId,
      stepIndex,
      attempt,
      count,
    ]);
  }

  /** Up to `limit` waiting items, lowest index first, now RUNNING; with their execution count. */
  async take(owner: MapOwner, limit: number): Promise<Array<{ index: number; attempts: number }>> {
    const res = await this.db.query<{ item_index: number; attempts: number }>(
      { name: 'map_take', text: SQL.TAKE_MAP_ITEMS },
      [owner.stepRunId, owner.workerId, limit],
    );
    return res.rows
      .map((r) => ({ index: r.item_index, attempts: r.attempts }))
      .sort((a, b) => a.index - b.index);
  }

  /** Settles finished items with their events; returns how many were settled (0: the map is lost). */
  async settle(owner: MapOwner, stepName: string, results: ItemResult[]): Promise<number> {
    const res = await this.db.query<{ settled: number }>(
      { name: 'map_settle', text: SQL.SETTLE_MAP_ITEMS },
      [
        owner.stepRunId,
        owner.workerId,
        owner.runId,
        owner.workspaceId,
        results.map((r) => r.index),
        results.map((r) => r.status),
        results.map((r) => (r.output === null ? null : JSON.stringify(r.output))),
        results.map((r) => r.error),
        results.map((r) => Math.round(r.durationMs)),
        stepName,
      ],
    );
    return res.rows[0]?.settled ?? 0;
  }

  /** The latest child run of each item of a map whose sub-step is a workflow. */
  async children(
    runId: string,
    stepRunId: string,
  ): Promise<
    Map<
      number,
      { id: string; status: string; output: Record<string, unknown> | null; error: string | null }
    >
  > {
    const res = await this.db.query<{
      parent_item_index: number;
      id: string;
      status: string;
      output: Record<string, unknown> | null;
      error: string | null;
    }>(SQL.MAP_CHILDREN, [runId, stepRunId]);
    return new Map(res.rows.map((r) => [r.parent_item_index, r]));
  }

  /** Up to `limit` waiting items, lowest index first, left waiting (see `start`). */
  async pending(stepRunId: string, limit: number): Promise<number[]> {
    const res = await this.db.query<{ item_index: number }>(SQL.PENDING_MAP_ITEMS, [
      stepRunId,
      limit,
    ]);
    return res.rows.map((r) => r.item_index);
  }

  /** Marks a waiting item RUNNING in the caller's transaction; false when it was not waiting. */
  async start(client: PoolClient, stepRunId: string, index: number): Promise<boolean> {
    const res = await client.query(SQL.START_MAP_ITEM, [stepRunId, index]);
    return (res.rowCount ?? 0) > 0;
  }

  /** Every item of the step in order. */
  async results(stepRunId: string): Promise<SettledItem[]> {
    const res = await this.db.query<{
      item_index: number;
      status: SettledItem['status'];
      output: Record<string, unknown> | null;
      error: string | null;
    }>({ name: 'map_results', text: SQL.MAP_ITEM_RESULTS }, [stepRunId]);
    return res.rows.map((r) => ({
      index: r.item_index,
      status: r.status,
      output: r.output,
      error: r.error,
    }));
  }
}
