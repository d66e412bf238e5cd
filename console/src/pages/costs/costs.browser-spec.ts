import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import {
  DESKTOP,
  launchChromium,
  openConsole,
  PHONE,
  screenshot,
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
import { formatInteger, formatUsd } from '../../format';
import { bucketLabel } from './cost-range';

const HOSTILE = '<img src=x onerror="window.__xss=1">';
const PRICING = {
  'cheap-model': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
};

interface Summary {
  totalCostUsd: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalRuns: number;
  byModel: {
    model: string;
    costUsd: number;
    inputTokens: number;
    outputTokens: number;
    calls: number;
  }[];
}
interface Series {
  bucket: string;
  points: {
    start: string;
    model: string;
    costUsd: number;
    inputTokens: number;
    outputTokens: number;
    calls: number;
  }[];
}
interface ByDefinition {
  definitions: {
    definitionId: string;
    name: string;
    version: string;
    costUsd: number;
    inputTokens: number;
    outputTokens: number;
    calls: number;
    runs: number;
  }[];
}

/** The cells of a table's body rows, as the user reads them. */
async function tableRows(page: Page, label: string): Promise<string[][]> {
  const rows = page.locator(`table[aria-label="${label}"] tbody tr`);
  const out: string[][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    out.push((await rows.nth(i).locator('th, td').allInnerTexts()).map((s) => s.trim()));
  }
  return out;
}

describe('console Costs page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let ws: WorkspaceWithKey;
  let hostileDefinitionId: string;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp({
      ...fakeLlmEnv(openai, anthropic),
      LLM_PRICING_JSON: JSON.stringify(PRICING),
    });
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    openai.script('cheap-model', { text: 'draft', inputTokens: 1234, outputTokens: 567 });
    anthropic.script('claude-haiku-4-5-20251001', {
      text: 'summary',
      inputTokens: 2000,
      outputTokens: 800,
    });
    const llm = (name: string, model: string) => ({
      type: 'llm',
      name,
      model,
      messages: [{ role: 'user', content: `step ${name}` }],
    });
    // Two definitions (one with a hostile name), two models, three runs.
    hostileDefinitionId = await createDefinition(t.http, ws.key, [llm('draft', 'cheap-model')], {
      name: `drafts ${HOSTILE}`,
      version: '3',
    });
    const summaries = await createDefinition(
      t.http,
      ws.key,
      [llm('draft', 'cheap-model'), llm('summarise', 'anthropic:claude-haiku-4-5-20251001')],
      { name: 'summaries', version: '1' },
    );
    const runs = await Promise.all([
      startRun(t.http, ws.key, hostileDefinitionId),
      startRun(t.http, ws.key, hostileDefinitionId),
      startRun(t.http, ws.key, summaries),
    ]);
    for (const runId of runs) await waitForRun(t.http, ws.key, runId, 'COMPLETED');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  async function apiCosts(from: string, to: string, bucket: 'day' | 'hour') {
    const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const get = async (path: string) => {
      const res = await t.http.get(path).set('x-api-key', ws.key);
      expect(res.status).toBe(200);
      return res.body.data as unknown;
    };
    return {
      summary: (await get(`/v1/cost/summary?${q}`)) as Summary,
      series: (await get(`/v1/cost/timeseries?${q}&bucket=${bucket}`)) as Series,
      byDefinition: (await get(`/v1/cost/by-definition?${q}`)) as ByDefinition,
    };
  }

  it("shows the API's totals, series, by-model and by-definition figures, and draws the charts", async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/costs?range=7d');
    await page.getByRole('heading', { name: 'Cost by model' }).waitFor();
    const now = Date.now();
    const from = new Date(Math.floor(now / 86_400_000) * 86_400_000 - 6 * 86_400_000);
    const { summary, series, byDefinition } = await apiCosts(
      from.toISOString(),
      new Date(now).toISOString(),
      'day',
    );
    expect(summary.byModel).toHaveLength(2);
    expect(summary.totalRuns).toBe(3);
    expect(byDefinition.definitions).toHaveLength(2);

    expect(await page.locator('[data-total="cost"]').innerText()).toBe(
      formatUsd(summary.totalCostUsd),
    );
    expect(await page.locator('[data-total="input"]').innerText()).toBe(
      formatInteger(summary.totalInputTokens),
    );
    expect(await page.locator('[data-total="output"]').innerText()).toBe(
      formatInteger(summary.totalOutputTokens),
    );
    expect(await page.locator('[data-total="runs"]').innerText()).toBe('3');

    expect(
      (await tableRows(page, 'Cost by model')).map((r) => [r[0], r[1], r[3], r[4], r[5]]),
    ).toEqual(
      summary.byModel.map((m) => [
        m.model,
        formatUsd(m.costUsd),
        formatInteger(m.inputTokens),
        formatInteger(m.outputTokens),
        formatInteger(m.calls),
      ]),
    );
    expect(await tableRows(page, 'Cost by workflow definition')).toEqual(
      byDefinition.definitions.map((d) => [
        d.name,
        d.version,
        formatUsd(d.costUsd),
        formatInteger(d.inputTokens),
        formatInteger(d.outputTokens),
        formatInteger(d.calls),
        formatInteger(d.runs),
      ]),
    );
    // The definition's link, its hostile name shown as text and never run.
    const link = page.getByRole('link', { name: `drafts ${HOSTILE}` });
    expect(await link.getAttribute('href')).toBe(`/console/definitions/${hostileDefinitionId}`);

    await page.getByText("Show the chart's numbers as a table").click();
    expect(await tableRows(page, 'Cost over time by model')).toEqual(
      series.points.map((p) => [
        bucketLabel(p.start, 'day'),
        p.model,
        formatUsd(p.costUsd),
        formatInteger(p.inputTokens),
        formatInteger(p.outputTokens),
        formatInteger(p.calls),
      ]),
    );

    // Both canvases are drawn: pixels of the most expensive model's colour (#0b5cad) are on them.
    for (const selector of ['.chart-wide canvas', '.chart-square canvas']) {
      expect(await page.locator(selector).getAttribute('role')).toBe('img');
      expect(await page.locator(selector).getAttribute('aria-label')).toBeTruthy();
      const painted = await page.evaluate<number>(`(() => {
        const canvas = document.querySelector(${JSON.stringify(selector)});
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i] === 11 && data[i + 1] === 92 && data[i + 2] === 173) n++;
        }
        return n;
      })()`);
      expect(painted).toBeGreaterThan(20);
    }

    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await screenshot(page, 'costs');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps a custom range in the URL across a reload and charts a single day by hour', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/costs');
    await page.getByRole('heading', { name: 'Cost by model' }).waitFor();
    expect(await page.getByLabel('Range', { exact: true }).inputValue()).toBe('30d');

    await page.getByLabel('Range', { exact: true }).selectOption('custom');
    await page.waitForURL((url) => url.searchParams.get('range') === 'custom');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(today);
    await page.waitForURL((url) => url.searchParams.get('from') === today);
    expect(new URL(page.url()).searchParams.get('to')).toBe(today);

    await page.reload();
    await page.getByRole('heading', { name: 'Cost by model' }).waitFor();
    expect(await page.getByLabel('Range', { exact: true }).inputValue()).toBe('custom');
    expect(await page.getByLabel('From (UTC)').inputValue()).toBe(today);
    expect(await page.getByLabel('To (UTC, included)').inputValue()).toBe(today);
    await page.getByText('charted by hour').waitFor();

    const { summary, series } = await apiCosts(
      `${today}T00:00:00.000Z`,
      `${today}T23:59:59.999Z`,
      'hour',
    );
    expect(await page.locator('[data-total="cost"]').innerText()).toBe(
      formatUsd(summary.totalCostUsd),
    );
    await page.getByText("Show the chart's numbers as a table").click();
    await page.getByRole('columnheader', { name: 'Hour (UTC)' }).waitFor();
    expect((await tableRows(page, 'Cost over time by model')).map((r) => r[0])).toEqual(
      series.points.map((p) => bucketLabel(p.start, 'hour')),
    );

    // Back to a preset through the history: the view follows the URL.
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('from') !== today);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says so when the workspace has no LLM spend in the range', async () => {
    const empty = await createWorkspaceWithKey(t.http);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, empty.key, 'Ada', '/console/costs?range=90d');
    await page.getByText('No LLM spend in this range').waitFor();
    expect(await page.locator('[data-total="cost"]').innerText()).toBe(formatUsd(0));
    expect(await page.locator('canvas').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada', '/console/costs?range=month');
      await page.getByRole('heading', { name: 'Cost by model' }).waitFor();
      await page.getByText("Show the chart's numbers as a table").click();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
