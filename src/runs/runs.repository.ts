import { Injectable } from '@nestjs/common';
import { keyIsActive } from '../common/key-check.sql';
import type { CachedKeyCheck } from '../common/auth';
import { Database } from '../common/database';
import { Batcher, inItemOrder } from '../common/batcher';
import { RUN_COLUMNS } from '../queue/queue.sql';
import { ENDED_STATUSES, type RunStatus } from '../queue/statuses';
import { traceBatch } from '../tracing/spans';

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

/** An event with its position in the run's order (`seq`, the SSE event id). */
export interface SequencedEventRow extends EventRow {
  seq: number;
}

const RUN_COLUMNS_OF_R = RUN_COLUMNS.split(',')
  .map((c) => `r.${c.trim()}`)
  .join(', ');

/** A timestamp column as the API writes timestamps (Date#toISOString: UTC, milliseconds). */
const isoTime = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The run of alias `r` as the API answers it (toRunDto, in its key order), written by the database
 * as JSON; `more`: further `, 'key', value` pairs. The hot reads (GET one run, the run list) send
 * this text as it is (JsonData), which spares the service parsing each row only to serialise it again;
 * test/run-json.e2e-spec.ts checks that both read a run exactly as toRunDto writes it.
 */
function runJson(r: string, more = ''): string {
  return `json_build_object(
    'id', ${r}.id, 'workspaceId', ${r}.workspace_id, 'definitionId', ${r}.definition_id,
    'status', ${r}.status, 'input', ${r}.input, 'output', ${r}.output, 'error', ${r}.error,
    'idempotencyKey', ${r}.idempotency_key, 'scheduleId', ${r}.schedule_id,
    'parentRunId', ${r}.parent_run_id, 'parentStepRunId', ${r}.parent_step_run_id,
    'createdAt', ${isoTime(`${r}.created_at`)}, 'updatedAt', ${isoTime(`${r}.updated_at`)}${more})`;
}

/** A statement with its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** The run list's filters. */
export interface RunListFilter {
  status?: RunStatus;
  definitionId?: string;
  scheduleId?: string;
  /** The runs started by this run's `workflow` steps (its children). */
  parentRunId?: string;
  /** created_at >= createdFrom */
  createdFrom?: Date;
  /** created_at < createdTo */
  createdTo?: Date;
}

/**
 * The run list's statements for a filter: a page, the total, and both in one statement for a batch of
 * reads of the same filters and page (`batch`, what the API runs: one round trip for the reads that
 * arrive together, one row each). Deferred join: the page's ids come from the covering index alone
 * (the offset is walked there, never in the table), then only those rows are read. Without a filter
 * the total is the workspace's sum in `run_counts` (migration RunCounts), never a count of its runs.
 * Exported so that the query-plan test plans exactly what the API runs.
 */
export function runListStatements(
  workspaceId: string,
  filter: RunListFilter,
  limit: number,
  offset: number,
): { page: Statement; count: Statement; batch: Statement } {
  const { clause, types, values } = listConditions(workspaceId, filter);
  const texts = listTexts(clause, types, limit, offset);
  return {
    page: { text: texts.page, values },
    count: { text: texts.count, values },
    batch: { text: texts.batch, values },
  };
}

/**
 * A filter's conditions on workflow_runs with their parameters ($1 the workspace) and the types the
 * statements give those. The clause names the filters present, never their values: with the page
 * size and offset it determines the statements' texts (listTexts).
 */
function listConditions(
  workspaceId: string,
  filter: RunListFilter,
): { clause: string; types: string[]; values: unknown[] } {
  const where = ['workspace_id = $1'];
  const values: unknown[] = [workspaceId];
  const types = ['uuid'];
  const add = (column: string, op: string, value: unknown, type: string): void => {
    values.push(value);
    types.push(type);
    where.push(`${column} ${op} $${values.length}`);
  };
  // `ended_status` (migration EndedStatus) is what the index holds: an ended run's status, NULL for
  // the runs still going, whose status is then read from the table.
  if (filter.status && ENDED_STATUSES.has(filter.status)) {
    add('ended_status', '=', filter.status, 'text');
  } else if (filter.status) {
    where.push('ended_status IS NULL');
    add('status', '=', filter.status, 'text');
  }
  if (filter.definitionId) add('definition_id', '=', filter.definitionId, 'uuid');
  if (filter.scheduleId) add('schedule_id', '=', filter.scheduleId, 'uuid');
  if (filter.parentRunId) add('parent_run_id', '=', filter.parentRunId, 'uuid');
  // A range on created_at, the column every list index orders by after its equality columns: the
  // index scan starts and stops at the bounds.
  if (filter.createdFrom) add('created_at', '>=', filter.createdFrom, 'timestamptz');
  if (filter.createdTo) add('created_at', '<', filter.createdTo, 'timestamptz');
  return { clause: where.join(' AND '), types, values };
}

/** The texts of runListStatements for a filter's conditions (listConditions) and a page. */
function listTexts(
  clause: string,
  types: readonly string[],
  limit: number,
  offset: number,
): { page: string; count: string; batch: string } {
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 1 || offset < 0) {
    throw new Error(`run list: bad limit ${limit} or offset ${offset}`);
  }
  // LIMIT and OFFSET are literals (checked integers), so that a named statement's generic plan knows
  // them and is as good as a custom one: PostgreSQL then stops planning it at every execution.
  const pageOf = (condition: string): string => `SELECT ${RUN_COLUMNS_OF_R} FROM workflow_runs r
         JOIN (SELECT id FROM workflow_runs WHERE ${condition}
               ORDER BY created_at DESC, id DESC
               LIMIT ${limit} OFFSET ${offset}) page ON page.id = r.id
         ORDER BY r.created_at DESC, r.id DESC`;
  const countOf = (condition: string, workspace: string): string =>
    types.length === 1
      ? `SELECT COALESCE(sum(runs), 0) AS total FROM run_counts WHERE workspace_id = ${workspace}`
      : `SELECT count(*) AS total FROM workflow_runs WHERE ${condition}`;
  // The batch form: parameter i of each read is column p<i> of the reads' arrays.
  const inBatch = clause.replace(/\$(\d+)/g, 'q.p$1');
  const columns = types.map((_, i) => `p${i + 1}`);
  const arrays = [...types, 'uuid'].map((type, i) => `$${i + 1}::${type}[]`);
  return {
    page: pageOf(clause),
    count: countOf(clause, '$1'),
    // For many reads of the same filters and page (Batcher): the text takes one array per
    // parameter, then one of the reads' cached keys (null for none). One row per read: the total,
    // whether its cached key is still active (README "API key cache"), and its page as a JSON array
    // of runs (runJson).
    batch: `SELECT q.n::int AS n, (${countOf(inBatch, 'q.p1')}) AS total,
                ${keyIsActive('q.key_id')} AS key_active,
                (SELECT COALESCE(json_agg(${runJson('p')} ORDER BY p.created_at DESC, p.id DESC),
                                 '[]'::json)::text
                 FROM (${pageOf(inBatch)}) p) AS data
         FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS q(${columns.join(', ')}, key_id, n)`,
  };
}

/** The values of one list read in a batch: its parameters, then its cached key's id (or null). */
type ListRead = readonly unknown[];

interface ListRow {
  n: number;
  total: string;
  key_active: boolean;
  data: string;
}

/**
 * First pages' list statements at most, per process: each has a name (planned once per connection,
 * like the other hot statements) and a Batcher of its own. Later pages, and any statement past that
 * bound, go unnamed and alone (planned each time).
 */
const MAX_LIST_STATEMENTS = 256;
const listStatementNames = new Map<string, string>();

function listStatementName(text: string): string | undefined {
  let name = listStatementNames.get(text);
  if (name === undefined && listStatementNames.size < MAX_LIST_STATEMENTS) {
    name = `runs_list_${listStatementNames.size}`;
    listStatementNames.set(text, name);
  }
  return name;
}

/** One page of a run's events ($1 run, $2 workspace, $3 limit, $4 offset), in order. */
export const RUN_EVENTS_PAGE = `
  SELECT id, run_id, step_run_id, event_type, payload, created_at FROM run_events
  WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq LIMIT $3 OFFSET $4`;

export const RUN_EVENTS_COUNT = `
  SELECT count(*) AS total FROM run_events WHERE run_id = $1 AND workspace_id = $2`;

/**
 * The events of several runs recorded after a sequence number each, at most $4 per run, in order:
 * $1 workspaces, $2 runs, $3 the last seq already read of each. The live event streams' one read per
 * wake-up, for every run woken at once; each run's part is one range scan of `run_events_pkey` (run_id, seq).
 * No gap can open behind the cursor: every statement that records a run's events holds the run's row
 * lock until it commits (the queue's rule: transitions lock the run first), so a run's events commit
 * in `seq` order.
 */
export const RUN_EVENTS_AFTER = `
  SELECT e.seq, e.id, e.run_id, e.step_run_id, e.event_type, e.payload, e.created_at
  FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS f(workspace_id, run_id, after)
  CROSS JOIN LATERAL (
    SELECT * FROM run_events e
    WHERE e.run_id = f.run_id AND e.workspace_id = f.workspace_id AND e.seq > f.after
    ORDER BY e.seq LIMIT $4
  ) e
  ORDER BY e.run_id, e.seq`;

/** A run's step runs ($1 run, $2 workspace), in the order they were created. */
export const RUN_STEPS = `
  SELECT id, step_index, step_name, step_type, status, attempt, output, error, started_at,
         completed_at
  FROM step_runs WHERE run_id = $1 AND workspace_id = $2 ORDER BY seq`;

/**
 * Runs as GET one run answers them (runJson with `currentStepIndex`), for many requests at once: item
 * n of the arrays is the run $2[n] of workspace $1[n], read only when $3[n] (a cached API key, or
 * null) is active; each row carries its item's `n` (1-based), and an item with no row found nothing.
 * Each run comes with its buffered signals oldest first (the order steps consume them
 * in): one scan of `run_signals_run_idx`, at most MAX_BUFFERED_SIGNALS_PER_RUN rows, and only their
 * previews, never the payloads.
 */
export const RUN_DETAILS = `
  SELECT q.n::int AS n, ${runJson(
    'r',
    `, 'currentStepIndex', r.current_step_index,
    'bufferedSignals', COALESCE((SELECT json_agg(json_build_object(
                                   'id', s.id, 'signalType', s.signal_type,
                                   'payloadBytes', s.payload_bytes, 'payloadPreview', s.payload_preview,
                                   'receivedAt', ${isoTime('s.received_at')})
                                 ORDER BY s.seq)
                                FROM run_signals s WHERE s.run_id = r.id), '[]'::json)`,
  )}::text AS data
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) WITH ORDINALITY AS q(workspace_id, id, key_id, n)
  JOIN workflow_runs r ON r.workspace_id = q.workspace_id AND r.id = q.id
  WHERE ${keyIsActive('q.key_id')}`;

/** One read of GET one run: workspace, run and the cached API key to check (or null). */
type DetailRead = readonly [workspaceId: string, runId: string, keyId: string | null];

/**
 * Statements reading runs for GET one run at once, and runs per statement at most (Batcher): two
 * in flight measured best (one makes every read wait behind a slow statement, four split the batches).
 */
const DETAIL_STATEMENTS = 2;
const DETAIL_BATCH = 200;
/** The same for the run list's first pages, per statement: a page is about 500 bytes per run. */
const LIST_STATEMENTS = 2;
const LIST_BATCH = 50;

/** Run reads: the list, one run, its events and its step runs. Transitions are the queue's (RunQueue). */
@Injectable()
export class RunsRepository {
  /** GET one run's reads, those made at the same moment in one statement (README "Performance"). */
  private readonly details = new Batcher<DetailRead, string>((reads) => this.readDetails(reads), {
    inContexts: (contexts, run) => traceBatch('batch run.read', contexts, run),
    maxInFlight: DETAIL_STATEMENTS,
    maxBatch: DETAIL_BATCH,
  });

  /** The run list's reads, one Batcher per first page's statement (listBatcher). */
  private readonly lists = new Map<string, Batcher<ListRead, ListRow>>();

  constructor(private readonly db: Database) {}

  /**
   * A page of runs as a JSON array (runJson) and the total; `key`: a cached API key the statement
   * settles.
   */
  async list(
    workspaceId: string,
    filter: RunListFilter,
    limit: number,
    offset: number,
    key?: CachedKeyCheck,
  ): Promise<{ json: string; total: number }> {
    const { clause, types, values } = listConditions(workspaceId, filter);
    const read: ListRead = [...values, key?.keyId ?? null];
    let text: string | undefined;
    const batchText = () => (text ??= listTexts(clause, types, limit, offset).batch);
    // The conditions and the page size determine a first page's statement: its Batcher is found by
    // them, without building its text (1.5 kB) for every request.
    const batcher = offset === 0 ? this.listBatcher(`${limit} ${clause}`, batchText) : undefined;
    const row = batcher
      ? await batcher.load(read)
      : (await this.readLists(batchText(), undefined, [read]))[0];
    if (!row) throw new Error('run list: the statement returned no row');
    key?.settle(row.key_active);
    return { json: row.data, total: Number(row.total) };
  }

  /**
   * The Batcher of a first page's list statement, for the statements that have a name; `shape`: the
   * page size and conditions that determine the statement's text.
   */
  private listBatcher(shape: string, textOf: () => string): Batcher<ListRead, ListRow> | undefined {
    let batcher = this.lists.get(shape);
    if (batcher === undefined) {
      const text = textOf();
      const name = listStatementName(text);
      if (name === undefined) return undefined;
      batcher = new Batcher<ListRead, ListRow>((reads) => this.readLists(text, name, reads), {
        inContexts: (contexts, run) => traceBatch('batch run.list', contexts, run),
        maxInFlight: LIST_STATEMENTS,
        maxBatch: LIST_BATCH,
      });
      this.lists.set(shape, batcher);
    }
    return batcher;
  }

  /** Reads of one list statement in one round trip: their values as one array per parameter. */
  private async readLists(
    text: string,
    name: string | undefined,
    reads: readonly ListRead[],
  ): Promise<Array<ListRow | undefined>> {
    const values = reads[0].map((_, i) => reads.map((read) => read[i]));
    const res = await this.db.query<ListRow>({ name, text, values });
    return inItemOrder(res.rows, reads.length);
  }

  /**
   * One run with its buffered signals (oldest first), as the API answers it (JSON text), read in one
   * statement so that the two agree: a run read as ended never lists signals (they are dropped in the
   * transaction that ends it). The statement is shared with the reads of other requests queued at the
   * same moment, and starts after this one was queued: it sees every write, and every revocation of
   * `key`, committed before the request asked.
   */
  async getDetail(
    workspaceId: string,
    id: string,
    key?: CachedKeyCheck,
  ): Promise<string | undefined> {
    const data = await this.details.load([workspaceId, id, key?.keyId ?? null]);
    // A row proves the key active; none can mean either, which CachedKeyInterceptor asks itself.
    if (data !== undefined) key?.settle(true);
    return data;
  }

  private async readDetails(reads: readonly DetailRead[]): Promise<Array<string | undefined>> {
    const res = await this.db.query<{ n: number; data: string }>({
      name: 'runs_get_details',
      text: RUN_DETAILS,
      values: [reads.map((r) => r[0]), reads.map((r) => r[1]), reads.map((r) => r[2])],
    });
    return inItemOrder(res.rows, reads.length).map((row) => row?.data);
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

  /**
   * The run's status and the seq of its latest event (0 when it has none), or undefined when the
   * workspace has no such run. The latest seq is one backward step in `run_events_pkey` (run_id, seq).
   */
  async statusAndLastSeq(
    workspaceId: string,
    id: string,
  ): Promise<{ status: RunStatus; lastSeq: number } | undefined> {
    const res = await this.db.query<{ status: RunStatus; last_seq: string }>(
      {
        name: 'runs_status_last_seq',
        text: `SELECT r.status, COALESCE((SELECT e.seq FROM run_events e WHERE e.run_id = r.id
                                          ORDER BY e.seq DESC LIMIT 1), 0) AS last_seq
               FROM workflow_runs r WHERE r.workspace_id = $1 AND r.id = $2`,
      },
      [workspaceId, id],
    );
    const row = res.rows[0];
    return row && { status: row.status, lastSeq: Number(row.last_seq) };
  }

  /** Up to `limit` events of each run recorded after its `after` seq, ordered by run and seq. */
  async eventsAfter(
    cursors: Array<{ workspaceId: string; runId: string; after: number }>,
    limit: number,
  ): Promise<SequencedEventRow[]> {
    const res = await this.db.query<SequencedEventRow & { seq: string }>(
      { name: 'runs_events_after', text: RUN_EVENTS_AFTER },
      [
        cursors.map((c) => c.workspaceId),
        cursors.map((c) => c.runId),
        cursors.map((c) => c.after),
        limit,
      ],
    );
    return res.rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  }

  async steps(workspaceId: string, runId: string): Promise<StepRunRow[]> {
    const res = await this.db.query<StepRunRow>(RUN_STEPS, [runId, workspaceId]);
    return res.rows;
  }
}
