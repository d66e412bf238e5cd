import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import type { CachedKeyCheck } from '../common/auth';
import { Batcher, inItemOrder } from '../common/batcher';
import { Database, type Queryable } from '../common/database';
import { KEY_ACTIVE } from '../common/key-check.sql';
import { timeOrderedUuid } from '../common/ids';
import { Metrics } from '../metrics/metrics';
import { traceBatch } from '../tracing/spans';
import { enqueueWebhookEvent } from './outbox';
import type { ReceivedSignal } from './outcome-plan';
import * as SQL from './queue.sql';
import { insertEvents } from './run-events';
import { dropBufferedSignals } from './run-signals';
import { ENDED_STATUSES, type RunStatus } from './statuses';

/** A run as the API answers it (RUN_COLUMNS). */
export interface RunRow {
  id: string;
  workspace_id: string;
  definition_id: string;
  status: RunStatus;
  input: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: string | null;
  idempotency_key: string | null;
  current_step_index: number;
  /** The schedule that started the run; null for a run started through the API. */
  schedule_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** The run whose `workflow` step started this one; null for a run started otherwise. */
  parent_run_id: string | null;
  parent_step_run_id: string | null;
}

/** Outcomes of the API's run transitions; the service maps them to answers and errors. */
export type TransitionResult =
  | { ok: true; run: { id: string; status: RunStatus; updated_at: Date } }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'bad-state'; status: RunStatus }
  | { ok: false; reason: 'signal-mismatch'; expected: string };

/** A signal for POST …/signals, its payload already checked and serialised by the caller. */
export interface IncomingSignal {
  signalType: string;
  /** Any JSON value. */
  payload: unknown;
  /** `payload` as JSON text. */
  payloadJson: string;
  /** UTF-8 bytes of `payloadJson`. */
  payloadBytes: number;
  /** What a run's read lists of the payload (the start of its JSON). */
  payloadPreview: string;
}

/** How POST …/signals ended: delivered to a waiting step, buffered, or refused. */
export type SignalResult =
  | { ok: true; id: string; status: 'delivered' | 'buffered' }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'terminal'; status: RunStatus }
  | { ok: false; reason: 'full'; buffered: number };

/** What a step of a definition needs to be queued: its name and type. */
export interface StepRef {
  name: string;
  type: string;
}

/** What a create reads besides the run: its definition's name (a metrics label). */
type CreatedRow = RunRow & { workflow: string };

/** A create for CREATE_RUNS: workspace, definition, input (JSON), traceparent, cached API key. */
type NewRun = readonly [
  workspaceId: string,
  definitionId: string,
  input: string,
  traceparent: string | null,
  keyId: string | null,
];

/**
 * Statements creating runs at once, and runs per statement at most (Batcher). Two: while one commits,
 * the next batch forms and is written.
 */
const CREATE_STATEMENTS = 2;
const CREATE_BATCH = 200;
/**
 * Characters of input JSON per statement at most: inputs may each be up to 1 MiB
 * (MAX_RUN_INPUT_BYTES), and 200 of them would make one statement of 200 MiB that every create
 * batched with them waits for.
 */
const CREATE_BATCH_INPUT_CHARS = 4 * 1024 * 1024;

type Transition = { id: string; status: RunStatus; updated_at: Date };

/**
 * The transitions the API drives (create, cancel, resume, retry, waking a step with a decision). Each
 * locks the run row first, as the executor does, so concurrent requests on one run have exactly one
 * winner and never deadlock with the executor.
 */
@Injectable()
export class RunQueue {
  /**
   * The creates of runs without an idempotency key or a schedule (most of them), those asked for at
   * the same moment in one statement (CREATE_RUNS).
   */
  private readonly creates = new Batcher<NewRun, CreatedRow>((runs) => this.createMany(runs), {
    inContexts: (contexts, run) => traceBatch('batch run.create', contexts, run),
    maxInFlight: CREATE_STATEMENTS,
    maxBatch: CREATE_BATCH,
    weigh: (run) => run[2].length,
    maxWeight: CREATE_BATCH_INPUT_CHARS,
  });

  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Creates the run and its first step run (due now), or returns the run holding the idempotency key.
   * `traceparent` is stored with a new run (the executor links its step spans to it). `key`: a cached
   * API key (README "API key cache") that must be active for anything to be written. A run without an
   * idempotency key or a schedule is created by the statement it shares with the creates asked for at
   * the same moment (CREATE_RUNS, README "Performance"); when that wrote nothing, or otherwise, by its
   * own CREATE_RUN, then the transaction that tells the reasons apart.
   */
  async create(
    workspaceId: string,
    definitionId: string,
    input: Record<string, unknown>,
    idempotencyKey: string | undefined,
    traceparent: string | null = null,
    scheduleId: string | null = null,
    key?: CachedKeyCheck,
  ): Promise<{ run: RunRow; created: boolean } | undefined> {
    const inputJson = JSON.stringify(input);
    const values = [
      workspaceId,
      definitionId,
      inputJson,
      idempotencyKey ?? null,
      traceparent,
      scheduleId,
    ];
    const keyId = key?.keyId ?? null;
    const quick =
      idempotencyKey === undefined && scheduleId === null
        ? await this.creates.load([workspaceId, definitionId, inputJson, traceparent, keyId])
        : (
            await this.db.query<CreatedRow>({ name: 'runs_create', text: SQL.CREATE_RUN }, [
              ...values,
              keyId,
            ])
          ).rows[0];
    if (quick) {
      key?.settle(true);
      this.metrics.runStarted(workspaceId, quick.workflow);
      return { run: quick, created: true };
    }
    // No row: the definition does not exist here, the idempotency key is taken, or the cached key
    // was revoked. The transaction below tells them apart (and waits for a concurrent holder of the
    // idempotency key).
    let workflow: string | undefined;
    const result = await this.db.transaction(async (client) => {
      if (key) {
        const active = await client.query(KEY_ACTIVE, [key.keyId]);
        key.settle((active.rowCount ?? 0) > 0);
      }
      const def = await client.query<StepRef & { workflow: string }>(SQL.FIRST_STEP, [
        workspaceId,
        definitionId,
      ]);
      if (def.rowCount === 0) return undefined;
      const inserted = await client.query<RunRow>(SQL.INSERT_RUN, values);
      if (inserted.rowCount === 0) {
        const existing = await client.query<RunRow>(SQL.RUN_BY_IDEMPOTENCY_KEY, [
          workspaceId,
          idempotencyKey,
        ]);
        return { run: existing.rows[0], created: false };
      }
      const run = inserted.rows[0];
      const first = def.rows[0];
      await client.query(SQL.QUEUE_STEP, [run.id, workspaceId, 0, first.name, first.type]);
      await client.query(SQL.NOTIFY_STEP_READY);
      workflow = first.workflow;
      return { run, created: true };
    });
    if (result?.created && workflow !== undefined) this.metrics.runStarted(workspaceId, workflow);
    return result;
  }

  /** One CREATE_RUNS statement: each item's run, or undefined when it wrote nothing. */
  private async createMany(runs: readonly NewRun[]): Promise<Array<CreatedRow | undefined>> {
    const res = await this.db.query<CreatedRow & { n: number }>({
      name: 'runs_create_many',
      text: SQL.CREATE_RUNS,
      values: [0, 1, 2, 3, 4].map((field) => runs.map((run) => run[field])),
    });
    return inItemOrder(res.rows, runs.length).map((row) => {
      if (row === undefined) return undefined;
      const { n: _n, ...run } = row;
      return run;
    });
  }

  /**
   * A scheduled fire's run, created on the scheduler's claim transaction (`client`) with create's
   * one statement, so that the run and the schedule's advance commit or roll back together. No row
   * when the idempotency key is taken (this fire's run exists already) or the definition is gone.
   * Once the transaction has committed, the caller reports each created run with `reportStarted`.
   */
  async createScheduled(
    client: Queryable,
    fire: {
      workspaceId: string;
      definitionId: string;
      input: Record<string, unknown>;
      idempotencyKey: string;
      scheduleId: string;
    },
  ): Promise<{ run: RunRow; workflow: string } | undefined> {
    const res = await client.query<CreatedRow>({ name: 'runs_create', text: SQL.CREATE_RUN }, [
      fire.workspaceId,
      fire.definitionId,
      JSON.stringify(fire.input),
      fire.idempotencyKey,
      null,
      fire.scheduleId,
      null,
    ]);
    if (!res.rowCount) return undefined;
    const { workflow, ...run } = res.rows[0];
    return { run, workflow };
  }

  /** The run-start metric of a run `createScheduled` made, after its transaction committed. */
  reportStarted(workspaceId: string, workflow: string): void {
    this.metrics.runStarted(workspaceId, workflow);
  }

  /**
   * PENDING, RUNNING, WAITING or PAUSED -> CANCELLED; in-flight steps are told through NOTIFY. The
   * cancel cascades to the run's unfinished descendants (child runs of `workflow` steps, their
   * children...), each cancelled as if on its own (its event, its webhook); and when the run is itself
   * a child its parent's waiting step is woken (and fails: the child was cancelled).
   */
  async cancel(workspaceId: string, id: string): Promise<TransitionResult> {
    const cancelled: Array<{ workspaceId: string; workflow: string; created_at: Date }> = [];
    const result = await this.transition(workspaceId, id, async (client, run) => {
      if (!['PENDING', 'RUNNING', 'WAITING', 'PAUSED'].includes(run.status)) {
        return { ok: false, reason: 'bad-state', status: run.status };
      }
      // The descendants are locked before any step of the run is touched (see LOCK_DESCENDANTS).
      const descendants = (
        await client.query<{ id: string; workspace_id: string }>(SQL.LOCK_DESCENDANTS, [id])
      ).rows;
      const row = await this.cancelLocked(client, workspaceId, id, cancelled);
      for (const child of descendants) {
        await this.cancelLocked(client, child.workspace_id, child.id, cancelled);
      }
      if (run.parent_run_id) await client.query(SQL.WAKE_PARENTS, [[id]]);
      return { ok: true, run: row };
    });
    if (result.ok) {
      for (const c of cancelled) {
        this.metrics.runFinished(c.workspaceId, c.workflow, 'cancelled', c.created_at);
      }
    }
    return result;
  }

  /** Cancels run `id`, whose row the transaction holds locked: its steps, event, webhook, NOTIFY. */
  private async cancelLocked(
    client: PoolClient,
    workspaceId: string,
    id: string,
    cancelled: Array<{ workspaceId: string; workflow: string; created_at: Date }>,
  ): Promise<Transition> {
    const { workflow, created_at, ...row } = (
      await client.query<Transition & { workflow: string; created_at: Date }>(SQL.CANCEL_RUN, [id])
    ).rows[0];
    cancelled.push({ workspaceId, workflow, created_at });
    await client.query(SQL.CANCEL_STEPS, [id]);
    await client.query(SQL.CANCEL_MAP_ITEMS, [id]);
    // Signals still buffered end with the run, recorded just before its terminal event.
    const dropped = await dropBufferedSignals(client, id, workspaceId);
    await insertEvents(client, [
      ...(dropped ? [dropped] : []),
      { runId: id, workspaceId, stepRunId: null, type: 'WORKFLOW_CANCELLED' },
    ]);
    await enqueueWebhookEvent(client, {
      workspaceId,
      runId: id,
      event: 'workflow.cancelled',
      data: { status: 'CANCELLED', cancelledAt: row.updated_at.toISOString() },
    });
    await client.query(SQL.NOTIFY_RUN_CANCELLED, [id]);
    return row;
  }

  /**
   * WAITING -> RUNNING: hands the signal to the parked step and queues it, in one statement
   * (RESUME_RUN). An external_event step takes only its own signalType.
   */
  async resume(
    workspaceId: string,
    id: string,
    signalType: string,
    payload: Record<string, unknown>,
  ): Promise<TransitionResult> {
    const signal: ReceivedSignal = { signalType, payload, receivedAt: new Date().toISOString() };
    const res = await this.db.query<{
      status: RunStatus;
      expected: string | null;
      resumed: boolean;
      updated_at: Date | null;
    }>({ name: 'runs_resume', text: SQL.RESUME_RUN }, [
      id,
      workspaceId,
      signalType,
      JSON.stringify(payload),
      JSON.stringify(signal),
    ]);
    const row = res.rows[0];
    if (!row) return { ok: false, reason: 'not-found' };
    if (row.resumed)
      return { ok: true, run: { id, status: 'RUNNING', updated_at: row.updated_at! } };
    if (row.status === 'WAITING' && row.expected !== null) {
      return { ok: false, reason: 'signal-mismatch', expected: row.expected };
    }
    return { ok: false, reason: 'bad-state', status: row.status };
  }

  /**
   * A signal for a run that has not ended (README "Signals"), under the run's lock: delivered when the
   * run is WAITING on an external_event step that takes its type (as `resume` would deliver it), else
   * buffered for the next external_event step of its type, unless the run already holds `maxBuffered`
   * signals. The lock orders it with the executor recording a step's parking and with the run's end,
   * which take the buffered signals (queue.sql.ts, "Signals").
   */
  signal(
    workspaceId: string,
    id: string,
    signal: IncomingSignal,
    maxBuffered: number,
  ): Promise<SignalResult> {
    return this.db.transaction(async (client): Promise<SignalResult> => {
      const run = (
        await client.query<{ status: RunStatus; buffered_signals: number }>(
          SQL.LOCK_RUN_FOR_SIGNAL,
          [workspaceId, id],
        )
      ).rows[0];
      if (!run) return { ok: false, reason: 'not-found' };
      if (ENDED_STATUSES.has(run.status)) {
        return { ok: false, reason: 'terminal', status: run.status };
      }
      const signalId = timeOrderedUuid();
      if (run.status === 'WAITING') {
        const received: ReceivedSignal = {
          signalType: signal.signalType,
          payload: signal.payload,
          receivedAt: new Date().toISOString(),
        };
        const delivered = await client.query(SQL.DELIVER_SIGNAL, [
          id,
          workspaceId,
          signal.signalType,
          signal.payloadJson,
          JSON.stringify(received),
          signalId,
        ]);
        if (delivered.rowCount) return { ok: true, id: signalId, status: 'delivered' };
      }
      if (run.buffered_signals >= maxBuffered) {
        return { ok: false, reason: 'full', buffered: run.buffered_signals };
      }
      await client.query(SQL.BUFFER_SIGNAL, [
        signalId,
        id,
        workspaceId,
        signal.signalType,
        signal.payloadJson,
        signal.payloadBytes,
        signal.payloadPreview,
      ]);
      return { ok: true, id: signalId, status: 'buffered' };
    });
  }

  /** FAILED -> RUNNING: the failed step runs again with fresh attempts; earlier outputs stay. */
  retry(
    workspaceId: string,
    id: string,
    steps: (definitionId: string) => Promise<StepRef[]>,
  ): Promise<TransitionResult> {
    return this.transition(workspaceId, id, async (client, run) => {
      if (run.status !== 'FAILED') return { ok: false, reason: 'bad-state', status: run.status };
      const definition = await steps(run.definition_id);
      const step = definition[run.current_step_index];
      const inserted = await client.query<{ id: string }>(SQL.QUEUE_STEP, [
        id,
        workspaceId,
        run.current_step_index,
        step.name,
        step.type,
      ]);
      const updated = await client.query<Transition>(SQL.RESTART_RUN, [id]);
      await insertEvents(client, [
        {
          runId: id,
          workspaceId,
          stepRunId: inserted.rows[0].id,
          type: 'STEP_RETRYING',
          payload: { stepName: step.name, attempt: 1, delayMs: 0, manual: true },
        },
      ]);
      await client.query(SQL.NOTIFY_STEP_READY);
      return { ok: true, run: updated.rows[0] };
    });
  }

  /**
   * Wakes a step parked for a decision with `signal` (PAUSED -> RUNNING), in the caller's
   * transaction, which must hold the run's lock.
   */
  async wakeWithSignal(
    client: Queryable,
    runId: string,
    stepRunId: string,
    signal: ReceivedSignal,
  ): Promise<void> {
    await client.query(SQL.WAKE_STEP, [stepRunId, runId, JSON.stringify(signal)]);
  }

  private transition(
    workspaceId: string,
    id: string,
    fn: (client: PoolClient, run: RunRow) => Promise<TransitionResult>,
  ): Promise<TransitionResult> {
    return this.db.transaction(async (client) => {
      const run = (await client.query<RunRow>(SQL.LOCK_WORKSPACE_RUN, [workspaceId, id])).rows[0];
      if (!run) return { ok: false, reason: 'not-found' };
      return fn(client, run);
    });
  }
}
