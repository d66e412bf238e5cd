import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
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
import { createDefinition, getRun, startRun, waitForRun } from '../../../../test/support/workflows';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

describe('console sign-in, session and sign-out (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http, { name: `Team ${HOSTILE}` });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses a wrong key with the service message and stays on sign-in', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await page.goto('/console/sign-in');
    await page.getByLabel('API key').fill('svc_not-a-real-key');
    await page.getByLabel('Your name').fill('Ada');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('invalid or revoked API key').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await context.cookies()).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the key in an HttpOnly, SameSite=Strict cookie that scripts cannot read', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada Lovelace');
    await page.getByText('Signed in as').waitFor();
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const visible = await page.evaluate<{ cookie: string; local: string; session: string }>(`({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
    })`);
    expect(visible.cookie).toBe('');
    expect(visible.local).not.toContain(ws.key);
    expect(visible.session).not.toContain(ws.key);
    // The workspace's hostile name is shown as text, not run.
    await page.getByText(`Team ${HOSTILE}`).waitFor();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sends a signed-out deep link through sign-in and back to the same page and filters', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await page.goto('/console/approvals?tab=decided');
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    await page.getByLabel('API key').fill(ws.key);
    await page.getByLabel('Your name').fill('Grace');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console/approvals');
    expect(new URL(page.url()).search).toBe('?tab=decided');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('returns to sign-in when the key is revoked, keeping the page, and comes back after it', async () => {
    const spare = await t.http
      .post('/v1/api-keys')
      .set('x-api-key', ws.key)
      .send({ name: 'reviewer key' });
    const spareKey = (spare.body as { data: { key: string; id: string } }).data;
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, spareKey.key, 'Grace', '/console/costs?range=7d');

    const revoked = await t.http.delete(`/v1/api-keys/${spareKey.id}`).set('x-api-key', ws.key);
    expect(revoked.status).toBe(200);
    await page.reload();
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    await page.getByText('Your session has ended').waitFor();

    await page.getByLabel('API key').fill(ws.key);
    await page.getByLabel('Your name').fill('Grace');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console/costs');
    expect(new URL(page.url()).search).toBe('?range=7d');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs out: the cookie is cleared and pages lead to sign-in again', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    expect(await context.cookies()).toEqual([]);
    await page.goto('/console/runs');
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('does not let another site act with the session (SameSite cookie and Origin check)', async () => {
    const definitionId = await createDefinition(t.http, ws.key, [
      { type: 'external_event', name: 'hold', signalType: 'go' },
    ]);
    const runId = await startRun(t.http, ws.key, definitionId, {});
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    const target = `${t.baseUrl}/v1/workflow-runs/${runId}/cancel`;
    // An attacker's page on another site (localhost is another site than 127.0.0.1): a form post and a
    // credentialed fetch to the service, while the victim is signed in.
    const attacker: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${target}"></form>` +
          `<script>fetch(${JSON.stringify(target)}, {method: 'POST', credentials: 'include', mode: 'no-cors'})` +
          `.finally(() => document.getElementById('f').submit());</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
    const { page, context } = await openConsole(browser, t.baseUrl);
    try {
      await signIn(page, ws.key, 'Ada');
      const response = page.waitForResponse(
        (r) =>
          r.url() === target &&
          r.request().method() === 'POST' &&
          r.request().resourceType() === 'document',
      );
      await page.goto(attackerUrl);
      expect([401, 403]).toContain((await response).status());
      expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');
    } finally {
      await context.close();
      await new Promise((resolve) => attacker.close(resolve));
    }
  });

  it('has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await page.goto('/console/sign-in');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      if (viewport === DESKTOP) await screenshot(page, 'sign-in');
      await signIn(page, ws.key, 'Ada');
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const scrolls = await page.evaluate(
        'document.documentElement.scrollWidth > window.innerWidth',
      );
      expect(scrolls).toBe(false);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
