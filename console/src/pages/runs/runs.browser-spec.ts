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
import { waitFor } from '../../../../test/support/wait';
import { createDefinition, startRun, waitForRun } from '../../../../test/support/workflows';

const HOSTILE = [
  '<img src=x onerror="window.__xss=1">',
  '<script>window.__xss=1</script>',
  '"><svg onload=window.__xss=1>',
];

/** The run ids in the table, in order. */
async function shownRunIds(page: Page): Promise<string[]> {
  return page.locator('.runs-table tbody tr td:first-child a').allTextContents();
}

/** Waits until the table shows exactly these run ids. */
async function untilShown(page: Page, ids: string[] | number): Promise<void> {
  await waitFor(`runs table showing ${JSON.stringify(ids)}`, async () => {
    const shown = await shownRunIds(page);
    const ok =
      typeof ids === 'number'
        ? shown.length === ids
        : JSON.stringify(shown) === JSON.stringify(ids);
    return ok ? true : undefined;
  });
}

async function expectNoXss(page: Page): Promise<void> {
  expect(await page.locator('img[src="x"], svg[onload], main script').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
}

describe('console Runs page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  let broken: string;
  let failedRun: string;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http, { name: 'Acme operations' });
    const orders = await createDefinition(
      t.http,
      ws.key,
      [
        { type: 'task', name: 'price', handler: 'noop' },
        { type: 'task', name: 'receipt', handler: 'noop' },
      ],
      { name: 'order-fulfilment', version: '2' },
    );
    broken = await createDefinition(
      t.http,
      ws.key,
      [{ type: 'task', name: 'sync', handler: 'no.such.handler' }],
      { name: 'invoice-sync', version: '1' },
    );
    const intake = await createDefinition(
      t.http,
      ws.key,
      [{ type: 'external_event', name: 'await-payment', signalType: 'payment.received' }],
      { name: 'payment-intake', version: '1' },
    );
    // 21 runs (more than a page of 20): 17 completed, a failed one, two waiting, a cancelled one.
    const completed: string[] = [];
    for (let i = 0; i < 17; i++) completed.push(await startRun(t.http, ws.key, orders, { i }));
    failedRun = await startRun(t.http, ws.key, broken, {});
    const waiting = [
      await startRun(t.http, ws.key, intake, {}),
      await startRun(t.http, ws.key, intake, {}),
      await startRun(t.http, ws.key, intake, {}),
    ];
    for (const id of completed) await waitForRun(t.http, ws.key, id, 'COMPLETED');
    await waitForRun(t.http, ws.key, failedRun, 'FAILED');
    for (const id of waiting) await waitForRun(t.http, ws.key, id, 'WAITING');
    const cancelled = await t.http
      .post(`/v1/workflow-runs/${waiting[0]}/cancel`)
      .set('x-api-key', ws.key);
    expect(cancelled.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('finds a run by status and definition, keeps the filters in the URL, and pages', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada');
    await page.locator('.runs-table').waitFor();
    expect(await shownRunIds(page)).toHaveLength(20);
    await screenshot(page, 'runs');

    await page.getByLabel('Status').selectOption('FAILED');
    await page.getByLabel('Definition').selectOption({ label: 'invoice-sync@1' });
    await page.waitForURL((url) => url.searchParams.get('definitionId') === broken);
    expect(new URL(page.url()).searchParams.get('status')).toBe('FAILED');
    await untilShown(page, [failedRun]);
    await page.reload();
    await untilShown(page, [failedRun]);
    expect(await page.getByLabel('Status').inputValue()).toBe('FAILED');

    // The definition alone: its one run. Another status for it: nothing, said so.
    await page.getByLabel('Status').selectOption('COMPLETED');
    await page.getByText('No runs match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.search === '');

    // Pagination: the page is in the URL and survives a reload.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await page.getByText('Page 2 of 2 (21 in all)').waitFor();
    await untilShown(page, 1);
    await page.reload();
    await page.getByText('Page 2 of 2 (21 in all)').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('filters by creation time in UTC, refusing an end before the start', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada');
    await page.locator('.runs-table').waitFor();
    const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    await page.getByLabel('Created from (UTC)').fill(future);
    await page.waitForURL((url) => url.searchParams.get('createdFrom') === `${future}:00.000Z`);
    await page.getByText('No runs match these filters.').waitFor();

    const past = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
    await page.getByLabel('Created before (UTC)').fill(past);
    await page.getByText('"Created before" must be after "Created from".').waitFor();

    await page.getByLabel('Created from (UTC)').fill(past);
    await page.getByLabel('Created before (UTC)').fill(future);
    await page.waitForURL((url) => url.searchParams.get('createdTo') === `${future}:00.000Z`);
    await page.getByText('Page 1 of 2 (21 in all)').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('opens a run by its id, says so when there is no such run, and asks for an id', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada');
    const search = page.getByLabel('Run id');
    await search.fill(`  ${failedRun.toUpperCase()} `);
    await page.getByRole('button', { name: 'Open run' }).click();
    await page.waitForURL((url) => url.pathname === `/console/runs/${failedRun}`);
    await page.getByRole('heading', { level: 1, name: `Run ${failedRun}` }).waitFor();

    await page.goBack();
    const unknown = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    await page.getByLabel('Run id').fill(`${t.baseUrl}/console/runs/${unknown}`);
    await page.getByLabel('Run id').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Run not found' }).waitFor();
    await page.getByText(`There is no run ${unknown} in this workspace.`).waitFor();

    await page.goBack();
    await page.getByLabel('Run id').fill('not-an-id');
    await page.getByRole('button', { name: 'Open run' }).click();
    await page.getByRole('alert').getByText('Enter a run id').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/runs');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows status changes live without a reload, keeping focus in the table', async () => {
    const hostileDef = await createDefinition(
      t.http,
      ws.key,
      [{ type: 'external_event', name: 'await-payment', signalType: 'payment.received' }],
      { name: `report ${HOSTILE.join(' ')}`, version: '1' },
    );
    const waitingRun = await startRun(t.http, ws.key, hostileDef, {});
    await waitForRun(t.http, ws.key, waitingRun, 'WAITING');
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs?definitionId=${hostileDef}`);
    const row = page.locator('.runs-table tbody tr', { hasText: waitingRun });
    await row.locator('.badge', { hasText: 'WAITING' }).waitFor();
    // Hostile definition names are text, in the table and in the filter's options.
    await row.getByText(`report ${HOSTILE.join(' ')}@1`).waitFor();
    await expectNoXss(page);

    await row.getByRole('link').focus();
    const resumed = await t.http
      .post(`/v1/workflow-runs/${waitingRun}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'payment.received', payload: {} });
    expect(resumed.status).toBe(200);
    await waitForRun(t.http, ws.key, waitingRun, 'COMPLETED');
    await row.locator('.badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 15_000 });
    expect(
      await page.evaluate('document.activeElement && document.activeElement.textContent'),
    ).toBe(waitingRun);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious accessibility violation and no page-wide horizontal scroll at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada');
      await page.locator('.runs-table').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      await page.getByLabel('Status').selectOption('PAUSED');
      await page.getByText('No runs match these filters.').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
