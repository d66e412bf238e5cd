import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { pgPool } from '../src/common/database';
import * as SQL from '../src/queue/queue.sql';
import { OutcomeBatcher, type AdvanceItem, type CompleteItem } from '../src/queue/outcome-batcher';
import type { NewRunEvent } from '../src/queue/run-events';
import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { createDefinition, startRun } from './support/workflows';

const WORKER = 'batcher-test-worker';
const LEASE_MS = 60_000;

interface Claimed {
  id: string;
  run_id: string;
  workspace_id: string;
  step_index: number;
}

/**
 * The executor's group commit (OutcomeBatcher) against the real schema: outcomes handed over in one
 * turn of the event loop are written by one statement, each only if its step and run are still the
 * worker's, and never two outcomes of one run in one statement. The executor of the app is off; steps
 * are claimed with the executor's own claim statement.
 */
describe('OutcomeBatcher', () => {
  let t: TestApp;
  let ws: WorkspaceWithKey;
  let pool: Pool;
  let definitionId: string;

  beforeAll(async () => {
    t = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    ws = await createWorkspaceWithKey(t.http);
    pool = pgPool(t.app.get(DataSource));
    definitionId = await createDefinition(t.http, ws.key, [
      { type: 'task', name: 'one', handler: 'noop' },
      { type: 'task', name: 'two', handler: 'noop' },
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Starts `n` runs and claims their first steps as WORKER. */
  async function claimedRuns(n: number): Promise<Claimed[]> {
    const runIds: string[] = [];
    for (let i = 0; i < n; i++) runIds.push(await startRun(t.http, ws.key, definitionId));
    const claimed: Claimed[] = [];
    while (claimed.length < n) {
      const res = await pool.query<Claimed>(SQL.CLAIM_STEPS, [WORKER, 100, LEASE_MS, [], [], 100, true]);
      if (res.rowCount === 0) throw new Error('nothing to claim');
      claimed.push(...res.rows);
    }
    return runIds.map((id) => claimed.find((c) => c.run_id === id)!);
  }

  function advanceItem(c: Claimed, output: Record<string, unknown>): AdvanceItem {
    const nextId = randomUUID();
    const base = { runId: c.run_id, workspaceId: c.workspace_id };
    const events: NewRunEvent[] = [
      { ...base, stepRunId: c.id, type: 'STEP_COMPLETED', payload: { stepName: 'one' } },
      { ...base, stepRunId: nextId, type: 'STEP_STARTED', payload: { stepName: 'two' } },
    ];
    return {
      stepId: c.id,
      runId: c.run_id,
      workspaceId: c.workspace_id,
      output: JSON.stringify(output),
      nextId,
      nextIndex: 1,
      nextName: 'two',
      nextType: 'task',
      nextStatus: 'RUNNING',
      state: JSON.stringify({ one: output }),
      stepsExecuted: 1,
      events,
    };
  }

  function completeItem(c: Claimed, stepId: string): CompleteItem {
    const base = { runId: c.run_id, workspaceId: c.workspace_id };
    return {
      stepId,
      runId: c.run_id,
      workspaceId: c.workspace_id,
      output: JSON.stringify({ n: 2 }),
      state: JSON.stringify({ one: { n: 1 }, two: { n: 2 } }),
      stepIndex: 1,
      stepsExecuted: 2,
      webhookBody: JSON.stringify({ event: 'workflow.completed', data: {} }),
      events: [
        { ...base, stepRunId: stepId, type: 'STEP_COMPLETED', payload: { stepName: 'two' } },
        { ...base, stepRunId: null, type: 'WORKFLOW_COMPLETED', payload: {} },
      ],
    };
  }

  async function steps(runId: string) {
    return t.sql<{ id: string; step_index: number; status: string; locked_by: string | null }>(
      'SELECT id, step_index, status, locked_by FROM step_runs WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
  }

  async function eventTypes(runId: string): Promise<string[]> {
    const rows = await t.sql<{ event_type: string }>(
      'SELECT event_type FROM run_events WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return rows.map((r) => r.event_type);
  }

  function batchStatements(spy: jest.SpyInstance): string[] {
    return spy.mock.calls
      .map(([config]) => (config as { name?: string }).name)
      .filter((name): name is string => name?.startsWith('executor_') ?? false);
  }

  it('writes the outcomes handed over in one turn with one statement, each run advanced in order', async () => {
    const runs = await claimedRuns(5);
    const batcher = new OutcomeBatcher(pool, WORKER, LEASE_MS);
    const spy = jest.spyOn(pool, 'query');
    try {
      const items = runs.map((c, i) => advanceItem(c, { n: i }));
      const results = await Promise.all(items.map((item) => batcher.advance(item)));
      expect(batchStatements(spy)).toEqual(['executor_advance_runs']);
      for (const [i, result] of results.entries()) {
        expect(result).toEqual({ owned: true, startedAt: expect.any(Date) });
        const rows = await steps(runs[i].run_id);
        expect(rows.map((r) => [r.id, r.step_index, r.status, r.locked_by])).toEqual([
          [runs[i].id, 0, 'COMPLETED', null],
          [items[i].nextId, 1, 'RUNNING', WORKER],
        ]);
        expect(await eventTypes(runs[i].run_id)).toEqual([
          'WORKFLOW_STARTED',
          'STEP_STARTED',
          'STEP_COMPLETED',
          'STEP_STARTED',
        ]);
        const [run] = await t.sql<{ state: unknown; current_step_index: number; status: string }>(
          'SELECT state, current_step_index, status FROM workflow_runs WHERE id = $1',
          [runs[i].run_id],
        );
        expect(run).toEqual({ state: { one: { n: i } }, current_step_index: 1, status: 'RUNNING' });
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('completes several runs with one statement', async () => {
    const runs = await claimedRuns(3);
    const batcher = new OutcomeBatcher(pool, WORKER, LEASE_MS);
    const advanced = runs.map((c) => advanceItem(c, { n: 1 }));
    await Promise.all(advanced.map((item) => batcher.advance(item)));
    const spy = jest.spyOn(pool, 'query');
    try {
      const done = await Promise.all(
        runs.map((c, i) => batcher.complete(completeItem(c, advanced[i].nextId))),
      );
      expect(done).toEqual([true, true, true]);
      expect(batchStatements(spy)).toEqual(['executor_complete_runs']);
    } finally {
      spy.mockRestore();
    }
    for (const c of runs) {
      const [run] = await t.sql<{ status: string; output: unknown; finished_at: Date | null }>(
        'SELECT status, output, finished_at FROM workflow_runs WHERE id = $1',
        [c.run_id],
      );
      expect(run).toEqual({
        status: 'COMPLETED',
        output: { one: { n: 1 }, two: { n: 2 } },
        finished_at: expect.any(Date),
      });
      expect((await eventTypes(c.run_id)).slice(-2)).toEqual([
        'STEP_COMPLETED',
        'WORKFLOW_COMPLETED',
      ]);
    }
  });

  it('never puts two outcomes of one run in one statement: the later one finds the step done and writes nothing', async () => {
    const [c] = await claimedRuns(1);
    const batcher = new OutcomeBatcher(pool, WORKER, LEASE_MS);
    const spy = jest.spyOn(pool, 'query');
    try {
      const [first, second] = await Promise.all([
        batcher.advance(advanceItem(c, { n: 1 })),
        batcher.advance(advanceItem(c, { n: 2 })),
      ]);
      expect(first).toEqual({ owned: true, startedAt: expect.any(Date) });
      expect(second).toEqual({ owned: false });
      expect(batchStatements(spy)).toEqual(['executor_advance_runs', 'executor_advance_runs']);
    } finally {
      spy.mockRestore();
    }
    expect((await steps(c.run_id)).map((r) => r.status)).toEqual(['COMPLETED', 'RUNNING']);
    expect(await eventTypes(c.run_id)).toEqual([
      'WORKFLOW_STARTED',
      'STEP_STARTED',
      'STEP_COMPLETED',
      'STEP_STARTED',
    ]);
  });

  it("writes nothing for a cancelled run or another worker's step, and still writes the rest of the batch", async () => {
    const [cancelled, foreign, fine] = await claimedRuns(3);
    const res = await t.http
      .post(`/v1/workflow-runs/${cancelled.run_id}/cancel`)
      .set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    const before = await eventTypes(cancelled.run_id);
    const mine = new OutcomeBatcher(pool, WORKER, LEASE_MS);
    const other = new OutcomeBatcher(pool, 'some-other-worker', LEASE_MS);
    const results = await Promise.all([
      mine.advance(advanceItem(cancelled, { n: 1 })),
      other.advance(advanceItem(foreign, { n: 1 })),
      mine.advance(advanceItem(fine, { n: 1 })),
    ]);
    expect(results).toEqual([
      { owned: false },
      { owned: false },
      { owned: true, startedAt: expect.any(Date) },
    ]);
    expect((await steps(cancelled.run_id)).map((r) => r.status)).toEqual(['CANCELLED']);
    expect(await eventTypes(cancelled.run_id)).toEqual(before);
    expect((await steps(foreign.run_id)).map((r) => [r.status, r.locked_by])).toEqual([
      ['RUNNING', WORKER],
    ]);
    expect((await steps(fine.run_id)).map((r) => r.status)).toEqual(['COMPLETED', 'RUNNING']);
  });

  it('writes the outcomes of a statement that fails again one by one: only those refused alone fail', async () => {
    const runs = await claimedRuns(4);
    const batcher = new OutcomeBatcher(pool, WORKER, LEASE_MS);
    // Values the database refuses: a step type longer than its column, a state jsonb cannot hold.
    const refused = [
      { ...advanceItem(runs[1], { n: 1 }), nextType: 'x'.repeat(50) },
      { ...advanceItem(runs[3], { n: 1 }), state: '{"a": "\\u0000"}' },
    ];
    const spy = jest.spyOn(pool, 'query');
    let results: Array<PromiseSettledResult<unknown>>;
    try {
      results = await Promise.allSettled([
        batcher.advance(advanceItem(runs[0], { n: 1 })),
        batcher.advance(refused[0]),
        batcher.advance(advanceItem(runs[2], { n: 1 })),
        batcher.advance(refused[1]),
      ]);
      // One statement for the batch, then one per outcome.
      expect(batchStatements(spy)).toEqual(Array(5).fill('executor_advance_runs'));
    } finally {
      spy.mockRestore();
    }
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    const statuses = await Promise.all(
      runs.map(async (c) => (await steps(c.run_id)).map((r) => r.status)),
    );
    expect(statuses).toEqual([
      ['COMPLETED', 'RUNNING'],
      ['RUNNING'],
      ['COMPLETED', 'RUNNING'],
      ['RUNNING'],
    ]);
  });
});
