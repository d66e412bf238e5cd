import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from './support/fake-llm';
import { startExecutorProcess, type ServiceProcess } from './support/service-process';
import { createDefinition, eventually, startRun, waitForRun } from './support/workflows';

/** 0.01 USD per output token; the steps ask for 10: a call and its reservation are 0.1 USD each. */
const PRICING = { 'm-crash': { inputPerMillion: 0, outputPerMillion: 10_000 } };
const CALL = { text: 'ok', inputTokens: 7, outputTokens: 10 };

/**
 * The reservation of an LLM call belongs to the lease of its step: when the process making the call
 * dies, the reservation stops counting once another executor takes the step over, so a budget is
 * never held by calls that no longer exist.
 */
describe('budget reservations of a process that died', () => {
  let api: TestApp;
  let ws: WorkspaceWithKey;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    // This process serves the API only; the executors are spawned processes.
    api = await createTestApp({ EXECUTOR_ENABLED: 'false' });
    ws = await createWorkspaceWithKey(api.http);
  });

  afterAll(async () => {
    for (const s of services.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
    await api.close();
    await openai.close();
    await anthropic.close();
  });

  const spawnExecutor = () =>
    startExecutorProcess(api.databaseUrl, services, {
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
    });

  it('expire with the lease: the step taken over makes its call within the budget', async () => {
    const budget = await api.http
      .put('/v1/workspaces/current/budget')
      .set('x-api-key', ws.key)
      .send({ monthlyLimitUsd: 0.15 });
    expect(budget.status).toBe(200);
    // The first call never answers: its process is killed while it waits. The next one answers.
    openai.script('m-crash', { ...CALL, until: new Promise<never>(() => undefined) }, CALL);
    const definitionId = await createDefinition(api.http, ws.key, [
      {
        type: 'llm',
        name: 'draft',
        model: 'm-crash',
        maxTokens: 10,
        messages: [{ role: 'user', content: 'hello' }],
      },
    ]);
    const first = await spawnExecutor();
    const runId = await startRun(api.http, ws.key, definitionId);
    await eventually(async () => openai.requestsFor('m-crash').length === 1, 20_000, 'the call');
    const held = await api.sql<{ amount: string }>(
      'SELECT amount_usd::text AS amount FROM budget_reservations WHERE workspace_id = $1',
      [ws.workspace.id],
    );
    expect(held).toEqual([{ amount: '0.1' }]);

    first.child.kill('SIGKILL');
    await first.exited(10_000);
    // Its reservation would leave 0.05 of the 0.15: too little for the call, were it still counted.
    await spawnExecutor();
    const run = await waitForRun(api.http, ws.key, runId, 'COMPLETED', 30_000);
    expect(run.output).toMatchObject({ draft: { text: 'ok', costUsd: 0.1 } });
    expect(openai.requestsFor('m-crash')).toHaveLength(2);
    // The dead process's reservation was deleted by the next check, the new one with the outcome.
    const left = await api.sql('SELECT 1 FROM budget_reservations WHERE workspace_id = $1', [
      ws.workspace.id,
    ]);
    expect(left).toEqual([]);
    const spent = await api.http.get('/v1/workspaces/current/budget').set('x-api-key', ws.key);
    expect(spent.body.data.spentUsd).toBe(0.1);
  });
});
