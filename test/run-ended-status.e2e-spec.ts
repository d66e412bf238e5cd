import { Client } from 'pg';
import { runListStatements } from '../src/runs/runs.repository';
import { ENDED_STATUSES, RUN_STATUSES, type RunStatus } from '../src/queue/statuses';
import { fileDatabaseUrl } from './support/database';

/**
 * `workflow_runs.ended_status` (migration EndedStatus): the indexes name it instead of `status`, so a
 * run's status changes before its end are HOT updates, and the run list's status filter reads it.
 */
describe("a run's status in its indexes", () => {
  let db: Client;
  let workspaceId: string;
  let definitionId: string;

  const newWorkspace = async (slug: string): Promise<string> =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO workspaces (name, slug) VALUES ($1, $1) RETURNING id`,
        [slug],
      )
    ).rows[0].id;

  const newRun = async (status: RunStatus, workspace = workspaceId): Promise<string> =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO workflow_runs (workspace_id, definition_id, status) VALUES ($1, $2, $3)
         RETURNING id`,
        [workspace, definitionId, status],
      )
    ).rows[0].id;

  /** The rows of workflow_runs this transaction updated so far, and how many of them HOT. */
  const updates = async (): Promise<{ all: number; hot: number }> => {
    const { rows } = await db.query<{ all: string; hot: string }>(
      `SELECT pg_stat_get_xact_tuples_updated('workflow_runs'::regclass) AS all,
              pg_stat_get_xact_tuples_hot_updated('workflow_runs'::regclass) AS hot`,
    );
    return { all: Number(rows[0].all), hot: Number(rows[0].hot) };
  };

  const setStatus = (id: string, status: RunStatus) =>
    db.query('UPDATE workflow_runs SET status = $2, updated_at = now() WHERE id = $1', [
      id,
      status,
    ]);

  /** The ids the run list's page and its total give for a status filter, as the API runs them. */
  const listed = async (
    workspace: string,
    status: RunStatus,
  ): Promise<{ ids: string[]; total: number }> => {
    const { page, count } = runListStatements(workspace, { status }, 20, 0);
    const ids = (await db.query<{ id: string }>(page.text, page.values)).rows.map((r) => r.id);
    const total = Number(
      (await db.query<{ total: string }>(count.text, count.values)).rows[0].total,
    );
    return { ids, total };
  };

  beforeAll(async () => {
    db = new Client({ connectionString: await fileDatabaseUrl() });
    await db.connect();
    workspaceId = await newWorkspace('ended');
    definitionId = (
      await db.query<{ id: string }>(
        `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
         VALUES ($1, 'd', '1', '[{"type":"task","name":"a","handler":"noop"}]') RETURNING id`,
        [workspaceId],
      )
    ).rows[0].id;
  });

  afterAll(async () => {
    await db.end();
  });

  it('is NULL until the run ends, then the status it ended in', async () => {
    for (const status of RUN_STATUSES) {
      const id = await newRun(status);
      const { rows } = await db.query<{ ended_status: string | null }>(
        'SELECT ended_status FROM workflow_runs WHERE id = $1',
        [id],
      );
      expect([status, rows[0].ended_status]).toEqual([
        status,
        ENDED_STATUSES.has(status) ? status : null,
      ]);
    }
  });

  it('changes the status of a run still going without new index entries (HOT), and only its end moves it in the indexes', async () => {
    const id = await newRun('PENDING');
    await db.query('BEGIN');
    try {
      // The life of a run that waits for an approval: claimed, paused, resumed, completed.
      for (const status of ['RUNNING', 'PAUSED', 'RUNNING'] as const) await setStatus(id, status);
      expect(await updates()).toEqual({ all: 3, hot: 3 });
      await setStatus(id, 'COMPLETED');
      expect(await updates()).toEqual({ all: 4, hot: 3 });
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('keeps room on each page for those updates', async () => {
    const { rows } = await db.query<{ options: string[] }>(
      `SELECT reloptions AS options FROM pg_class WHERE relname = 'workflow_runs'`,
    );
    expect(rows[0].options).toContain('fillfactor=65');
  });

  it('lists a run under its status, ended or not, and a retried run no longer under FAILED', async () => {
    const ws = await newWorkspace('listed');
    const failed = await newRun('FAILED', ws);
    const waiting = await newRun('WAITING', ws);
    await newRun('COMPLETED', ws);
    expect(await listed(ws, 'FAILED')).toEqual({ ids: [failed], total: 1 });
    expect(await listed(ws, 'WAITING')).toEqual({ ids: [waiting], total: 1 });
    // A retry takes the run back to RUNNING (RESTART_RUN): its ended status is gone with it.
    await setStatus(failed, 'RUNNING');
    expect(await listed(ws, 'FAILED')).toEqual({ ids: [], total: 0 });
    expect(await listed(ws, 'RUNNING')).toEqual({ ids: [failed], total: 1 });
    await setStatus(waiting, 'CANCELLED');
    expect(await listed(ws, 'WAITING')).toEqual({ ids: [], total: 0 });
    expect(await listed(ws, 'CANCELLED')).toEqual({ ids: [waiting], total: 1 });
  });
});
