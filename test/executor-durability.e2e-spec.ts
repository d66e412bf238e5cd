import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';
import { startHoldServer, type HoldServer } from './support/hold-server';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import { createDefinition, eventually, runEvents, startRun, waitForRun } from './support/workflows';

/**
 * The executor's guarantees across processes: crashes, leases, two executors on one database,
 * cancellation of an in-flight step, graceful shutdown, and timers and buffered signals that survive
 * restarts.
 */
describe('executor durability', () => {
  let api: TestApp;
  let key: string;
  let hold: HoldServer;
  const services: ServiceProcess[] = [];

  const spawnExecutor = (env: Record<string, string> = {}): Promise<ServiceProcess> =>
    startExecutorProcess(api.databaseUrl, services, env);

  beforeAll(async () => {
    // This process serves the API only; executors are the spawned processes or explicit apps.
    api = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    ({ key } = await createWorkspaceWithKey(api.http));
  });

  beforeEach(async () => {
    hold = await startHoldServer();
  });

  afterEach(async () => {
    await hold.close();
    for (const s of services.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await api.close();
  });

  it('completes a run on a second process after the first is killed mid-step, each step completed once', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'first', handler: 'noop' },
      { type: 'task', name: 'slow', handler: 'http', config: { url: `${hold.url}/hold/crash` } },
      { type: 'task', name: 'last', handler: 'noop' },
    ]);
    const first = await spawnExecutor();
    const runId = await startRun(api.http, key, definitionId);
    await eventually(
      async () => hold.hits('/hold/crash').length > 0,
      20_000,
      'the slow step to start',
    );

    first.child.kill('SIGKILL');
    await first.exited(10_000);
    hold.answerImmediately();
    await spawnExecutor();

    const run = await waitForRun(api.http, key, runId, 'COMPLETED', 30_000);
    expect(run.output).toMatchObject({ first: {}, slow: { status: 200 }, last: {} });

    const completed = await api.sql<{ step_index: number; n: string }>(
      `SELECT step_index, count(*) AS n FROM step_runs
       WHERE run_id = $1 AND status = 'COMPLETED' GROUP BY step_index ORDER BY step_index`,
      [runId],
    );
    expect(completed.map((r) => [r.step_index, Number(r.n)])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    const events = await runEvents(api.http, key, runId);
    const types = events.map((e) => e.eventType);
    expect(types[0]).toBe('WORKFLOW_STARTED');
    expect(types[types.length - 1]).toBe('WORKFLOW_COMPLETED');
    const stepCompletions = events
      .filter((e) => e.eventType === 'STEP_COMPLETED')
      .map((e) => e.payload.stepName);
    expect(stepCompletions).toEqual(['first', 'slow', 'last']);
    // The slow step was started twice (once per process) and its events stay in recorded order.
    const slowStarts = events.filter(
      (e) => e.eventType === 'STEP_STARTED' && e.payload.stepName === 'slow',
    );
    expect(slowStarts.length).toBe(2);
    const times = events.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('runs 500 runs on two executor processes and completes each exactly once', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'a', handler: 'noop' },
      { type: 'task', name: 'b', handler: 'noop' },
      { type: 'task', name: 'c', handler: 'noop' },
    ]);
    await spawnExecutor({ EXECUTOR_CONCURRENCY: '16' });
    await spawnExecutor({ EXECUTOR_CONCURRENCY: '16' });
    const runIds: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      runIds.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, () => startRun(api.http, key, definitionId)),
        )),
      );
    }
    await eventually(
      async () => {
        const [{ n }] = await api.sql<{ n: string }>(
          `SELECT count(*) AS n FROM workflow_runs WHERE id = ANY($1) AND status = 'COMPLETED'`,
          [runIds],
        );
        return Number(n) === 500;
      },
      90_000,
      '500 runs to complete',
    );
    const perRun = await api.sql<{ completions: string; steps: string; failures: string }>(
      `SELECT
         (SELECT count(*) FROM run_events e WHERE e.run_id = r.id AND e.event_type = 'WORKFLOW_COMPLETED') AS completions,
         (SELECT count(*) FROM step_runs s WHERE s.run_id = r.id AND s.status = 'COMPLETED') AS steps,
         (SELECT count(*) FROM run_events e WHERE e.run_id = r.id AND e.event_type = 'STEP_COMPLETED') AS failures
       FROM workflow_runs r WHERE r.id = ANY($1)`,
      [runIds],
    );
    expect(perRun).toHaveLength(500);
    for (const row of perRun) {
      expect(Number(row.completions)).toBe(1);
      expect(Number(row.steps)).toBe(3);
      expect(Number(row.failures)).toBe(3);
    }
  });

  it('aborts the in-flight step of a cancelled run and starts no later step', async () => {
    const executor = await createTestApp({ EXECUTOR_POLL_INTERVAL_MS: '100' });
    try {
      const definitionId = await createDefinition(api.http, key, [
        { type: 'task', name: 'slow', handler: 'http', config: { url: `${hold.url}/hold/cancel` } },
        {
          type: 'task',
          name: 'after',
          handler: 'http',
          config: { url: `${hold.url}/after-cancel` },
        },
      ]);
      const runId = await startRun(api.http, key, definitionId);
      await eventually(async () => hold.hits('/hold/cancel').length > 0, 20_000, 'the slow step');

      const res = await api.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', key);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: runId, status: 'CANCELLED' });

      // The step's AbortSignal fired: its HTTP request was dropped by the client.
      await eventually(async () => hold.hits('/hold/cancel')[0].aborted, 10_000, 'the abort');
      // Give any executor several poll intervals to (wrongly) start the next step.
      await new Promise((r) => setTimeout(r, 800));
      expect(hold.hits('/after-cancel')).toHaveLength(0);
      const run = await waitForRun(api.http, key, runId, 'CANCELLED');
      expect(run.status).toBe('CANCELLED');
      const events = await runEvents(api.http, key, runId);
      expect(events.map((e) => e.eventType)).toEqual([
        'WORKFLOW_STARTED',
        'STEP_STARTED',
        'WORKFLOW_CANCELLED',
      ]);
      const steps = await api.sql<{ step_name: string; status: string }>(
        'SELECT step_name, status FROM step_runs WHERE run_id = $1 ORDER BY seq',
        [runId],
      );
      expect(steps).toEqual([{ step_name: 'slow', status: 'CANCELLED' }]);
    } finally {
      await executor.close();
    }
  });

  it('gives one winner and one 409 to concurrent requests on one run', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'external_event', name: 'signal', signalType: 'go' },
      { type: 'external_event', name: 'again', signalType: 'go' },
    ]);
    const executor = await createTestApp({ EXECUTOR_POLL_INTERVAL_MS: '100' });
    try {
      for (let i = 0; i < 5; i++) {
        // resume + resume: only one delivers the signal.
        const a = await startRun(api.http, key, definitionId);
        await waitForRun(api.http, key, a, 'WAITING');
        const resumes = await Promise.all(
          [1, 2].map(() =>
            api.http
              .post(`/v1/workflow-runs/${a}/resume`)
              .set('x-api-key', key)
              .send({ signalType: 'go' }),
          ),
        );
        expect(resumes.map((r) => r.status).sort()).toEqual([200, 409]);

        // cancel + resume: if cancel commits first, resume is refused (409); if resume commits
        // first, the RUNNING run may still be cancelled. Either way the run ends CANCELLED and the
        // resume that lost is a 409 in the envelope.
        const b = await startRun(api.http, key, definitionId);
        await waitForRun(api.http, key, b, 'WAITING');
        const [cancel, resume] = await Promise.all([
          api.http.post(`/v1/workflow-runs/${b}/cancel`).set('x-api-key', key),
          api.http
            .post(`/v1/workflow-runs/${b}/resume`)
            .set('x-api-key', key)
            .send({ signalType: 'go' }),
        ]);
        expect(cancel.status).toBe(200);
        expect([200, 409]).toContain(resume.status);
        if (resume.status === 409) {
          expect(resume.body.error).toEqual({
            code: 'CONFLICT',
            message: 'run is not in a waiting state',
          });
        }
        await waitForRun(api.http, key, b, 'CANCELLED');

        // cancel + cancel: one 200, one 409.
        const c = await startRun(api.http, key, definitionId);
        await waitForRun(api.http, key, c, 'WAITING');
        const cancels = await Promise.all(
          [1, 2].map(() => api.http.post(`/v1/workflow-runs/${c}/cancel`).set('x-api-key', key)),
        );
        expect(cancels.map((r) => r.status).sort()).toEqual([200, 409]);
      }
    } finally {
      await executor.close();
    }
  });

  it('lets an in-flight step finish on shutdown and leaves the next step to another executor', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'slow', handler: 'http', config: { url: `${hold.url}/hold/shutdown` } },
      { type: 'task', name: 'next', handler: 'noop' },
    ]);
    const first = await createTestApp({ EXECUTOR_POLL_INTERVAL_MS: '100' });
    const runId = await startRun(api.http, key, definitionId);
    await eventually(async () => hold.hits('/hold/shutdown').length > 0, 20_000, 'the slow step');

    const closing = first.close();
    setTimeout(() => hold.release(), 300);
    await closing;

    const steps = await api.sql<{ step_name: string; status: string }>(
      'SELECT step_name, status FROM step_runs WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    expect(steps).toEqual([
      { step_name: 'slow', status: 'COMPLETED' },
      { step_name: 'next', status: 'PENDING' },
    ]);
    const second = await createTestApp({ EXECUTOR_POLL_INTERVAL_MS: '100' });
    try {
      await waitForRun(api.http, key, runId, 'COMPLETED');
    } finally {
      await second.close();
    }
  });

  it('keeps timers in Postgres: a wait started by one executor ends on another after a restart', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'wait', name: 'nap', durationMs: 1500 },
      { type: 'task', name: 'after', handler: 'noop' },
    ]);
    const first = await spawnExecutor();
    const runId = await startRun(api.http, key, definitionId);
    await waitForRun(api.http, key, runId, 'WAITING');
    first.child.kill('SIGKILL');
    await first.exited(10_000);
    await spawnExecutor();
    const run = await waitForRun(api.http, key, runId, 'COMPLETED', 20_000);
    expect(run.output).toMatchObject({ nap: { endedBy: 'timer' }, after: {} });
  });

  it('keeps a buffered signal across a killed executor: the external_event step of the next one consumes it, once', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'slow', handler: 'http', config: { url: `${hold.url}/hold/signal` } },
      { type: 'external_event', name: 'await-go', signalType: 'go' },
      { type: 'task', name: 'after', handler: 'noop' },
    ]);
    const first = await spawnExecutor();
    const runId = await startRun(api.http, key, definitionId);
    await eventually(async () => hold.hits('/hold/signal').length > 0, 20_000, 'the slow step');
    const sent = await api.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', key)
      .send({ signalType: 'go', payload: { n: 1 } });
    expect(sent.status).toBe(202);
    expect(sent.body.data.status).toBe('buffered');

    first.child.kill('SIGKILL');
    await first.exited(10_000);
    const [kept] = await api.sql<{ signal_type: string; payload: unknown }>(
      'SELECT signal_type, payload FROM run_signals WHERE run_id = $1',
      [runId],
    );
    expect(kept).toEqual({ signal_type: 'go', payload: { n: 1 } });
    hold.answerImmediately();
    await spawnExecutor();

    const run = await waitForRun(api.http, key, runId, 'COMPLETED', 30_000);
    expect(run.output).toMatchObject({
      'await-go': { signalType: 'go', payload: { n: 1 } },
      after: {},
    });
    expect(run.bufferedSignals).toEqual([]);
    const received = (await runEvents(api.http, key, runId)).filter(
      (e) => e.eventType === 'SIGNAL_RECEIVED',
    );
    expect(received.map((e) => e.payload.signalId)).toEqual([sent.body.data.id]);
    const rows = await api.sql('SELECT 1 FROM run_signals WHERE run_id = $1', [runId]);
    expect(rows).toEqual([]);
  });

  it('leaves runs PENDING while only API processes (EXECUTOR_ENABLED=false) are running', async () => {
    const definitionId = await createDefinition(api.http, key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    const runId = await startRun(api.http, key, definitionId);
    await new Promise((r) => setTimeout(r, 500));
    const pending = await api.http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', key);
    expect(pending.body.data.status).toBe('PENDING');
    const executor = await createTestApp({ EXECUTOR_POLL_INTERVAL_MS: '100' });
    try {
      await waitForRun(api.http, key, runId, 'COMPLETED');
    } finally {
      await executor.close();
    }
  });
});
