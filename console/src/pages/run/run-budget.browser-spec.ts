import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import {
  launchChromium,
  openConsole,
  seriousViolations,
  signIn,
} from '../../../../test/support/browser';
import { createWorkspaceWithKey, type WorkspaceWithKey } from '../../../../test/support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from '../../../../test/support/fake-llm';
import { createDefinition, startRun, waitForRun } from '../../../../test/support/workflows';
import { formatUsd } from '../../format';

/** 0.01 USD per output token, 10 output tokens a call: each call costs 0.1 USD. */
const PRICING = { 'budget-model': { inputPerMillion: 0, outputPerMillion: 10_000 } };

function shownEventTypes(page: Page): Promise<string[]> {
  return page.locator('.events-table tbody .event-type').allTextContents();
}

describe('console Run page, run budget (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
    });
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    openai.script('budget-model', { text: 'ok', inputTokens: 5, outputTokens: 10 });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it("shows the run's maxCostUsd, the BUDGET_EXCEEDED event and the budget's message", async () => {
    const llm = (name: string) => ({
      type: 'llm',
      name,
      model: 'budget-model',
      maxTokens: 10,
      messages: [{ role: 'user', content: name }],
    });
    const definitionId = await createDefinition(t.http, ws.key, [llm('one'), llm('two')], {
      maxCostUsd: 0.15,
    });
    const runId = await startRun(t.http, ws.key, definitionId);
    const run = await waitForRun(t.http, ws.key, runId, 'FAILED');

    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.locator('[data-fact="run-budget"]').waitFor();
    expect(await page.locator('[data-fact="run-budget"]').innerText()).toBe(
      `${formatUsd(0.15)} of LLM calls`,
    );
    await page.locator('.run-error pre').waitFor();
    expect(await page.locator('.run-error pre').innerText()).toBe(run.error);
    expect(run.error).toMatch(/^Run budget maxCostUsd 0\.15 USD is used up/);
    await page.locator('.events-table tbody .event-type', { hasText: 'BUDGET_EXCEEDED' }).waitFor();
    const types = await shownEventTypes(page);
    expect(types.slice(types.indexOf('BUDGET_EXCEEDED'))).toEqual([
      'BUDGET_EXCEEDED',
      'STEP_FAILED',
      'WORKFLOW_FAILED',
    ]);
    // It is shown as a failure, and the "failed only" filter keeps it.
    const row = page.locator('.events-table tbody tr', {
      has: page.locator('.event-type', { hasText: 'BUDGET_EXCEEDED' }),
    });
    expect(await row.getAttribute('class')).toBe('event-failure');
    await page.getByLabel('Failed only').check();
    await page.getByText(/^Showing \d+ of \d+ events$/).waitFor();
    expect(await shownEventTypes(page)).toEqual([
      'BUDGET_EXCEEDED',
      'STEP_FAILED',
      'WORKFLOW_FAILED',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
