import type { Pool, PoolClient } from 'pg';
import { eventColumns, type NewRunEvent } from './run-events';
import * as SQL from './queue.sql';

/** A completed step whose run goes on (ADVANCE_RUNS). JSON values are already serialised. */
export interface AdvanceItem {
  stepId: string;
  runId: string;
  workspaceId: string;
  output: string;
  nextId: string;
  nextIndex: number;
  nextName: string;
  nextType: string;
  /** RUNNING: inserted already claimed by this worker, which continues the run; PENDING: queued. */
  nextStatus: 'RUNNING' | 'PENDING';
  state: string;
  stepsExecuted: number;
  events: NewRunEvent[];
}

/** A run's last step completed (COMPLETE_RUNS). */
export interface CompleteItem {
  stepId: string;
  runId: string;
  workspaceId: string;
  output: string;
  state: string;
  stepIndex: number;
  stepsExecuted: number;
  /** The workflow.completed body (`webhookBody`), serialised; the statement sets output and time. */
  webhookBody: string;
  events: NewRunEvent[];
}

/** What an advance comes back with: not ours any more, or the next step's start time. */
export type AdvanceResult = { owned: false } | { owned: true; startedAt: Date | null };

const MAX_BATCH = 200;

/**
 * Records many runs' advances in one ADVANCE_RUNS statement. Each item writes only if its step and run
 * are still this worker's; the rows returned name the runs that were.
 */
export async function advanceRuns(
  db: Pool | PoolClient,
  workerId: string,
  leaseMs: number,
  items: AdvanceItem[],
  announce = true,
): Promise<Map<string, Date | null>> {
  const res = await db.query<{ run_id: string; started_at: Date | null }>({
    name: 'executor_advance_runs',
    text: SQL.ADVANCE_RUNS,
    values: [
      workerId,
      leaseMs,
      items.map((i) => i.stepId),
      items.map((i) => i.runId),
      items.map((i) => i.workspaceId),
      items.map((i) => i.output),
      items.map((i) => i.nextId),
      items.map((i) => i.nextIndex),
      items.map((i) => i.nextName),
      items.map((i) => i.nextType),
      items.map((i) => i.nextStatus),
      items.map((i) => i.state),
      items.map((i) => i.stepsExecuted),
      ...eventColumns(items.flatMap((i) => i.events)),
      announce,
    ],
  });
  return new Map(res.rows.map((r) => [r.run_id, r.started_at]));
}

/** Records many runs' completion in one COMPLETE_RUNS statement; returns the runs that were ours. */
export async function completeRuns(
  db: Pool | PoolClient,
  workerId: string,
  items: CompleteItem[],
  announce = true,
): Promise<Set<string>> {
  const res = await db.query<{ run_id: string }>({
    name: 'executor_complete_runs',
    text: SQL.COMPLETE_RUNS,
    values: [
      workerId,
      items.map((i) => i.stepId),
      items.map((i) => i.runId),
      items.map((i) => i.workspaceId),
      items.map((i) => i.output),
      items.map((i) => i.state),
      items.map((i) => i.stepIndex),
      items.map((i) => i.stepsExecuted),
      items.map((i) => i.webhookBody),
      ...eventColumns(items.flatMap((i) => i.events)),
      announce,
    ],
  });
  return new Set(res.rows.map((r) => r.run_id));
}

interface Pending<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the executor's hot path. Workers that finish a step in the same turn of the event
 * loop (typically all those a previous batch released at once) have their outcomes written by one
 * statement of each kind instead of one each: one round trip and one commit for many runs. Every step
 * still has its own durable checkpoint before its run goes on: a worker awaits the statement that
 * records its step. A batch never holds two outcomes of one run; a second one waits for the next
 * batch. If a statement fails, its outcomes are written again one by one, and only those that fail
 * alone are failed (their workers hand the steps back).
 */
export class OutcomeBatcher {
  private advances: Array<Pending<AdvanceItem, AdvanceResult>> = [];
  private completes: Array<Pending<CompleteItem, boolean>> = [];
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly workerId: string,
    private readonly leaseMs: number,
    /** Whether the statements announce their events to live streams (RunEventAnnouncer). */
    private readonly announce: () => boolean = () => true,
  ) {}

  advance(item: AdvanceItem): Promise<AdvanceResult> {
    return new Promise((resolve, reject) => {
      this.advances.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves true when the run was completed, false when the step was no longer ours. */
  complete(item: CompleteItem): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.completes.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const seen = new Set<string>();
    const advances = take(this.advances, seen);
    const completes = take(this.completes, seen);
    this.advances = advances.rest;
    this.completes = completes.rest;
    if (this.advances.length > 0 || this.completes.length > 0) this.schedule();
    if (advances.batch.length > 0) {
      this.write(
        advances.batch,
        (items) => advanceRuns(this.pool, this.workerId, this.leaseMs, items, this.announce()),
        (started, item): AdvanceResult =>
          started.has(item.runId)
            ? { owned: true, startedAt: started.get(item.runId) ?? null }
            : { owned: false },
      );
    }
    if (completes.batch.length > 0) {
      this.write(
        completes.batch,
        (items) => completeRuns(this.pool, this.workerId, items, this.announce()),
        (done, item) => done.has(item.runId),
      );
    }
  }

  /**
   * Writes a batch with one statement. When it fails, each outcome is written again alone, so that one
   * outcome the database refuses fails only its own step, not the others that shared its statement
   * (each failure counts against its step, see RELEASE_STEP).
   */
  private write<I extends { runId: string }, W, R>(
    batch: Array<Pending<I, R>>,
    statement: (items: I[]) => Promise<W>,
    result: (written: W, item: I) => R,
  ): void {
    statement(batch.map((p) => p.item)).then(
      (written) => batch.forEach((p) => p.resolve(result(written, p.item))),
      (err: unknown) => {
        if (batch.length === 1) return batch[0].reject(err);
        for (const p of batch) this.write([p], statement, result);
      },
    );
  }
}

/** Up to MAX_BATCH queued outcomes, at most one per run (across both kinds); the rest wait. */
function take<T extends { item: { runId: string } }>(
  queue: T[],
  seen: Set<string>,
): { batch: T[]; rest: T[] } {
  const batch: T[] = [];
  const rest: T[] = [];
  for (const p of queue) {
    if (batch.length < MAX_BATCH && !seen.has(p.item.runId)) {
      seen.add(p.item.runId);
      batch.push(p);
    } else {
      rest.push(p);
    }
  }
  return { batch, rest };
}
