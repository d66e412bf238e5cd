import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import * as SQL from '../src/queue/queue.sql';
import { fileDatabaseUrl } from './support/database';

/**
 * `step_runs` keeps room on its pages (migration StepRunsFillfactor): the executor's outcome update
 * writes the step's new version on the page of the old one, so PostgreSQL logs only what changed and
 * no extra row lock. The steps are recorded by the executor's own hot-path statement (ADVANCE_RUNS).
 */
describe("a step's outcome on its page", () => {
  let db: Client;
  let workspaceId: string;
  let definitionId: string;

  /** The heap page a step row's current version is on. */
  const pageOf = async (stepId: string): Promise<number> =>
    Number(
      (
        await db.query<{ page: string }>(
          `SELECT (ctid::text::point)[0] AS page FROM step_runs WHERE id = $1`,
          [stepId],
        )
      ).rows[0].page,
    );

  /** A RUNNING run whose first step runs under `worker`'s lease, as a claim leaves them. */
  const runningStep = async (): Promise<{ runId: string; stepId: string }> => {
    const runId = (
      await db.query<{ id: string }>(
        `INSERT INTO workflow_runs (workspace_id, definition_id, status) VALUES ($1, $2, 'RUNNING')
         RETURNING id`,
        [workspaceId, definitionId],
      )
    ).rows[0].id;
    const stepId = (
      await db.query<{ id: string }>(
        `INSERT INTO step_runs (run_id, workspace_id, step_index, step_name, step_type, status,
                                locked_by, lock_expires_at, started_at)
         VALUES ($1, $2, 0, 'a', 'task', 'RUNNING', 'worker', now() + interval '1 minute', now())
         RETURNING id`,
        [runId, workspaceId],
      )
    ).rows[0].id;
    return { runId, stepId };
  };

  beforeAll(async () => {
    db = new Client({ connectionString: await fileDatabaseUrl() });
    await db.connect();
    workspaceId = (
      await db.query<{ id: string }>(
        `INSERT INTO workspaces (name, slug) VALUES ('pages', 'pages') RETURNING id`,
      )
    ).rows[0].id;
    definitionId = (
      await db.query<{ id: string }>(
        `INSERT INTO workflow_definitions (workspace_id, name, version, steps)
         VALUES ($1, 'd', '1', '[{"type":"task","name":"a","handler":"noop"},
                               {"type":"task","name":"b","handler":"noop"}]') RETURNING id`,
        [workspaceId],
      )
    ).rows[0].id;
  });

  afterAll(async () => {
    await db.end();
  });

  it('keeps room on each page', async () => {
    const { rows } = await db.query<{ options: string[] }>(
      `SELECT reloptions AS options FROM pg_class WHERE relname = 'step_runs'`,
    );
    expect(rows[0].options).toContain('fillfactor=70');
  });

  it('records the outcomes of the steps of a filled page on that page', async () => {
    // Steps are inserted until the first page is as full as inserts may make it.
    const first: Array<{ runId: string; stepId: string }> = [];
    for (;;) {
      const step = await runningStep();
      if ((await pageOf(step.stepId)) !== 0) break;
      first.push(step);
      if (first.length > 200) throw new Error('the first page of step_runs never filled');
    }
    const done = first.slice(0, 5);
    const n = done.length;
    const { rows } = await db.query<{ run_id: string }>(SQL.ADVANCE_RUNS, [
      'worker',
      60_000,
      done.map((s) => s.stepId),
      done.map((s) => s.runId),
      done.map(() => workspaceId),
      done.map(() => JSON.stringify({ ok: true })),
      done.map(() => randomUUID()),
      done.map(() => 1),
      done.map(() => 'b'),
      done.map(() => 'task'),
      done.map(() => 'RUNNING'),
      done.map(() => '{}'),
      done.map(() => 1),
      [],
      [],
      [],
      [],
      [],
      false,
    ]);
    expect(rows).toHaveLength(n);
    const after = await db.query<{ status: string; page: number }>(
      `SELECT status, (ctid::text::point)[0] AS page FROM step_runs WHERE id = ANY ($1::uuid[])`,
      [done.map((s) => s.stepId)],
    );
    expect(after.rows).toEqual(Array.from({ length: n }, () => ({ status: 'COMPLETED', page: 0 })));
  });
});
