import type { Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import {
  launchChromium,
  openConsole,
  PHONE,
  screenshot,
  seriousViolations,
  signIn,
} from '../../../../test/support/browser';
import {
  createScopedKey,
  createWorkspaceWithKey,
  type WorkspaceWithKey,
} from '../../../../test/support/factories';
import {
  fakeLlmEnv,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmServer,
} from '../../../../test/support/fake-llm';
import { createDefinition, startRun, waitForRun } from '../../../../test/support/workflows';
import { formatUsd } from '../../format';
import { monthLabel } from './budget';

/** 0.01 USD per output token, 10 output tokens a call: each call costs 0.1 USD. */
const PRICING = { 'budget-model': { inputPerMillion: 0, outputPerMillion: 10_000 } };

describe('console Costs page, monthly budget (browser)', () => {
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
    const definitionId = await createDefinition(t.http, ws.key, [
      {
        type: 'llm',
        name: 'draft',
        model: 'budget-model',
        maxTokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      },
    ]);
    for (let i = 0; i < 2; i++) {
      await waitForRun(t.http, ws.key, await startRun(t.http, ws.key, definitionId), 'COMPLETED');
    }
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  async function apiBudget() {
    const res = await t.http.get('/v1/workspaces/current/budget').set('x-api-key', ws.key);
    return res.body.data as {
      monthlyLimitUsd: number | null;
      spentUsd: number;
      periodStart: string;
    };
  }

  it("shows the month's spend, sets, changes and removes the budget, refusing a bad limit", async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/costs');
    const panel = page.getByRole('region', { name: 'Monthly LLM budget' });
    await panel.locator('[data-budget="none"]').waitFor();
    const { periodStart } = await apiBudget();
    expect(await panel.locator('[data-budget="none"]').innerText()).toContain(
      `No monthly budget: LLM calls are not limited. ${monthLabel(periodStart)} (UTC) has spent`,
    );
    expect(await panel.locator('[data-budget="spent"]').innerText()).toBe(formatUsd(0.2));
    expect(await seriousViolations(page)).toEqual([]);

    // A limit with 7 decimals is refused in the form; nothing is sent.
    const limit = panel.getByLabel('Monthly limit (USD)');
    await limit.fill('1.0000001');
    await panel.getByRole('button', { name: 'Set budget' }).click();
    await panel.getByText('Enter a number of USD with at most 6 decimals').waitFor();
    expect(await limit.getAttribute('aria-invalid')).toBe('true');
    expect((await apiBudget()).monthlyLimitUsd).toBeNull();

    await limit.fill('0.5');
    await panel.getByRole('button', { name: 'Set budget' }).click();
    await panel.getByText(`Budget set to ${formatUsd(0.5)} a month.`).waitFor();
    await panel.locator('[data-budget="limit"]').waitFor();
    expect(await panel.locator('[data-budget="limit"]').innerText()).toBe(formatUsd(0.5));
    expect(await panel.locator('[data-budget="spent"]').innerText()).toBe(formatUsd(0.2));
    expect(await panel.locator('[data-budget="left"]').innerText()).toBe(formatUsd(0.3));
    expect(await panel.locator('[data-budget="percent"]').innerText()).toBe('40% used');
    expect(await panel.locator('progress').getAttribute('value')).toBe('40');
    expect((await apiBudget()).monthlyLimitUsd).toBe(0.5);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'costs-budget');

    // Lowered below what the month spent: used up, and by how much it is over.
    await limit.fill('0.15');
    await panel.getByRole('button', { name: 'Change budget' }).click();
    await panel.locator('[data-budget="used-up"]').waitFor();
    expect(await panel.locator('[data-budget="percent"]').innerText()).toBe('133% used');
    expect(await panel.getByText('Over the limit by').count()).toBe(1);
    expect(await panel.locator('[data-budget="left"]').innerText()).toBe(formatUsd(0.05));

    // Removing asks first.
    await panel.getByRole('button', { name: 'Remove budget' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the monthly budget?' });
    await dialog.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Remove budget' }).click();
    await panel.getByText('Budget removed.').waitFor();
    await panel.locator('[data-budget="none"]').waitFor();
    expect((await apiBudget()).monthlyLimitUsd).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a key without keys:write the figures and no form', async () => {
    await t.http
      .put('/v1/workspaces/current/budget')
      .set('x-api-key', ws.key)
      .send({ monthlyLimitUsd: 2 });
    const reader = await createScopedKey(t.http, ws.key, ['costs:read']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, reader.key, 'Ada', '/console/costs');
    const panel = page.getByRole('region', { name: 'Monthly LLM budget' });
    await panel.locator('[data-budget="limit"]').waitFor();
    expect(await panel.locator('[data-budget="limit"]').innerText()).toBe(formatUsd(2));
    await panel.getByText('This key may read the budget but not change it').waitFor();
    expect(await panel.getByLabel('Monthly limit (USD)').count()).toBe(0);
    expect(await panel.getByRole('button').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fits a phone screen', async () => {
    await t.http
      .put('/v1/workspaces/current/budget')
      .set('x-api-key', ws.key)
      .send({ monthlyLimitUsd: 1 });
    const { page, context, problems } = await openConsole(browser, t.baseUrl, PHONE);
    await signIn(page, ws.key, 'Ada', '/console/costs');
    const panel = page.getByRole('region', { name: 'Monthly LLM budget' });
    await panel.locator('[data-budget="limit"]').waitFor();
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
