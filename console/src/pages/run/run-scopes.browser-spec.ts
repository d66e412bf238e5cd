import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import {
  launchChromium,
  openConsole,
  PHONE,
  seriousViolations,
  signIn,
} from '../../../../test/support/browser';
import {
  createScopedKey,
  createWorkspaceWithKey,
  type WorkspaceWithKey,
} from '../../../../test/support/factories';
import { createDefinition, getRun, startRun, waitForRun } from '../../../../test/support/workflows';

/** The API calls the page made that the service refused for a scope (the console should make none). */
function watchRefusals(page: Page): string[] {
  const refused: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 403) refused.push(response.url());
  });
  return refused;
}

const navLinks = (page: Page) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();

describe('console with a scoped key: runs and the run page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  let runId: string;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    const definitionId = await createDefinition(
      t.http,
      ws.key,
      [{ type: 'external_event', name: 'await-payment', signalType: 'payment.received' }],
      { name: 'scoped-intake', version: '1' },
    );
    runId = await startRun(t.http, ws.key, definitionId, {});
    await waitForRun(t.http, ws.key, runId, 'WAITING');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('with runs:read only: shows the runs and the run, offers no action, and closes the other pages with a message', async () => {
    const reader = await createScopedKey(t.http, ws.key, ['runs:read']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    const refused = watchRefusals(page);
    await signIn(page, reader.key, 'Rita', '/console/runs');

    // The navigation offers the one page the key can read; no pending-approvals badge is asked for.
    await page.locator(`a[href="/console/runs/${runId}"]`).waitFor();
    expect(await navLinks(page)).toEqual(['Runs']);
    // Without definitions:read the run shows its definition id and there is no definition filter.
    expect(await page.locator('#runs-definition').count()).toBe(0);

    await page.goto(`/console/runs/${runId}`);
    await page.getByText('Live updates: on.').waitFor();
    await page.locator('.run-header .badge', { hasText: 'WAITING' }).waitFor();
    expect(await page.getByRole('button', { name: /Cancel run|Resume|Retry/ }).count()).toBe(0);
    await page.getByText('Cancel, resume and retry need the scope runs:write').waitFor();
    await page.getByText('needs the scope costs:read').waitFor();
    expect(await page.locator('.run-header a[href^="/console/definitions/"]').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // A deep link to a page the key cannot read says which scope it lacks, instead of failing.
    for (const [path, scope] of [
      ['/console/approvals', 'approvals:read'],
      ['/console/costs', 'costs:read'],
      ['/console/definitions', 'definitions:read'],
      ['/console/webhooks', 'webhooks:read'],
      ['/console/api-keys', 'keys:read'],
    ]) {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Not available with this key' }).waitFor();
      await page.getByRole('alert').getByText(scope, { exact: true }).waitFor();
      expect(await page.getByText('Something went wrong').count()).toBe(0);
    }
    expect(await seriousViolations(page)).toEqual([]);
    expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('opens on the first page the key can read, and the phone layout has no violation either', async () => {
    const reviewer = await createScopedKey(t.http, ws.key, ['approvals:read', 'approvals:decide']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl, PHONE);
    await page.goto('/console/sign-in');
    await page.getByLabel('API key').fill(reviewer.key);
    await page.getByLabel('Your name').fill('Rita');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console/approvals');
    expect(await navLinks(page)).toEqual(['Approvals']);
    await page.getByText('No approvals waiting').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows which scope is missing, not an error page, when the service still refuses a call with 403', async () => {
    const key = await createScopedKey(t.http, ws.key, ['runs:read', 'costs:read']);
    const { page, context } = await openConsole(browser, t.baseUrl);
    await signIn(page, key.key, 'Rita', `/console/runs/${runId}`);
    // The service answers the run's cost with the refusal a key without the scope gets.
    await page.route(`**/v1/workflow-runs/${runId}/cost`, (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          error: { code: 'FORBIDDEN', message: 'API key lacks scope costs:read' },
        }),
      }),
    );
    await page.reload();
    const alert = page.getByRole('alert').filter({ hasText: 'lacks the scope' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('costs:read');
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    // The rest of the page is there.
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await context.close();
  });
});
