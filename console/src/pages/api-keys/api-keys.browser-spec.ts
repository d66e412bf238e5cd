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
import {
  createScopedKey,
  createWorkspaceWithKey,
  type WorkspaceWithKey,
} from '../../../../test/support/factories';
import { SCOPES } from '../../scopes';

const XSS = {
  img: '<img src=x onerror="window.__xss=1">',
  script: '<script>window.__xss=1</script>',
  svg: '"><svg onload=window.__xss=1>',
};

interface KeyView {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: string | null;
}

async function expectInert(page: Page): Promise<void> {
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.locator('main script').count()).toBe(0);
  expect(await page.locator('main svg[onload]').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
}

describe('console API keys page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function createKey(name: string): Promise<{ id: string; key: string }> {
    const res = await t.http.post('/v1/api-keys').set('x-api-key', ws.key).send({ name });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; key: string };
  }

  async function keys(): Promise<KeyView[]> {
    const res = await t.http.get('/v1/api-keys').set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return res.body.data as KeyView[];
  }

  const rowOf = (page: Page, keyId: string) => page.locator(`tr[data-key-id="${keyId}"]`);

  it('creates a key, shows it once (gone after a reload), and the key works', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/api-keys');
    await page.getByRole('table', { name: 'API keys' }).waitFor();

    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Enter a name for the key.').waitFor();
    const name = 'deploy-bot';
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByLabel('The new API key').inputValue();
    expect(shown).toMatch(/^svc_/);
    await page.getByText('This is the only time the key is shown').waitFor();
    await page.getByRole('heading', { name: `New key “${name}”` }).waitFor();
    const created = (await keys()).find((k) => k.name === name);
    expect(created).toEqual(expect.objectContaining({ revokedAt: null }));
    await rowOf(page, created!.id).getByText(name).waitFor();
    await expectInert(page);
    await screenshot(page, 'api-keys');
    // The copy button puts exactly the key on the clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(shown);

    // The key is a real key of the workspace.
    const me = await t.http.get('/v1/workspaces/current').set('x-api-key', shown);
    expect(me.status).toBe(200);

    // Never shown again: not after a reload, nowhere in the page or the browser's storage.
    await page.reload();
    await rowOf(page, created!.id).waitFor();
    expect(await page.getByLabel('The new API key').count()).toBe(0);
    expect(await page.content()).not.toContain(shown);
    const stored = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
    );
    expect(stored).not.toContain(shown);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("revokes another key after confirmation; the session's own key has no revoke button", async () => {
    const victim = await createKey(`old ci ${XSS.img}`);
    const spare = await createKey(`spare ${XSS.script}`);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/api-keys');

    const own = rowOf(page, ws.keyId);
    await own.getByText('this session', { exact: true }).waitFor();
    expect(await own.getByRole('button').count()).toBe(0);
    await own.getByText('In use by this session').waitFor();
    await rowOf(page, spare.id).getByText(`spare ${XSS.script}`).waitFor();
    await expectInert(page);

    // Cancel changes nothing.
    await rowOf(page, victim.id)
      .getByRole('button', { name: `Revoke old ci ${XSS.img}` })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
    await dialog.getByText(`old ci ${XSS.img}`).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await keys()).find((k) => k.id === victim.id)?.revokedAt).toBeNull();

    await rowOf(page, victim.id)
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(`The key “old ci ${XSS.img}” is revoked.`).waitFor();
    await rowOf(page, victim.id).getByText('revoked').waitFor();
    expect(await rowOf(page, victim.id).getByRole('button').count()).toBe(0);
    expect((await keys()).find((k) => k.id === victim.id)?.revokedAt).toEqual(expect.any(String));
    const refused = await t.http.get('/v1/workspaces/current').set('x-api-key', victim.key);
    expect(refused.status).toBe(401);
    // The other keys are untouched, and so is the session.
    expect((await keys()).find((k) => k.id === spare.id)?.revokedAt).toBeNull();
    await page.reload();
    await rowOf(page, ws.keyId).getByText('this session', { exact: true }).waitFor();
    await expectInert(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  /** The checkbox of a scope in the create form (its label is the scope, then what it allows). */
  const scopeBox = (page: Page, scope: string) =>
    page
      .getByRole('group', { name: 'Scopes' })
      .getByRole('checkbox', { name: new RegExp(`^${scope} `) });

  it('creates a key with the scopes chosen (all by default), and lists every key with its scopes', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/api-keys');
    await rowOf(page, ws.keyId).getByText('All scopes').waitFor();
    const boxes = page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox');
    expect(await boxes.count()).toBe(SCOPES.length);
    for (const scope of SCOPES) expect(await scopeBox(page, scope).isChecked()).toBe(true);

    // None at all is refused before anything is sent.
    await page.getByLabel('Name', { exact: true }).fill('reports');
    for (const scope of SCOPES) await scopeBox(page, scope).uncheck();
    const before = (await keys()).length;
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Choose at least one scope.').waitFor();
    expect((await keys()).length).toBe(before);

    await scopeBox(page, 'costs:read').check();
    await scopeBox(page, 'runs:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByLabel('The new API key').inputValue();
    const created = (await keys()).find((k) => k.name === 'reports');
    expect(created?.scopes).toEqual(['runs:read', 'costs:read']);
    const row = rowOf(page, created!.id);
    expect(
      await row
        .getByRole('list', { name: 'Scopes of reports' })
        .getByRole('listitem')
        .allTextContents(),
    ).toEqual(['runs:read', 'costs:read']);
    // The form is back to every scope for the next key.
    for (const scope of SCOPES) expect(await scopeBox(page, scope).isChecked()).toBe(true);
    // The key can do what it was given, and only that.
    expect((await t.http.get('/v1/cost/summary').set('x-api-key', shown)).status).toBe(200);
    expect((await t.http.get('/v1/webhooks').set('x-api-key', shown)).status).toBe(403);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('with a key holding fewer scopes, offers only those and no revocation of a wider key', async () => {
    const manager = await createScopedKey(t.http, ws.key, ['runs:read', 'keys:read', 'keys:write']);
    const narrow = await createScopedKey(t.http, ws.key, ['runs:read'], 'narrow reader');
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, manager.key, 'Ada', '/console/api-keys');
    await rowOf(page, narrow.id).waitFor();
    const boxes = page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox');
    expect(await boxes.count()).toBe(3);
    await page.getByText('a key can give only the scopes it holds itself').waitFor();

    // The workspace's first key has every scope: out of this key's reach.
    const first = rowOf(page, ws.keyId);
    await first.getByText('which your key lacks').waitFor();
    expect(await first.locator('code').textContent()).toBe('definitions:read');
    expect(await first.getByRole('button').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await rowOf(page, narrow.id).getByRole('button', { name: 'Revoke narrow reader' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke this API key?' })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await page.getByText('The key “narrow reader” is revoked.').waitFor();
    expect((await keys()).find((k) => k.id === narrow.id)?.revokedAt).toEqual(expect.any(String));

    await page.getByLabel('Name', { exact: true }).fill('delegate');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('The new API key').waitFor();
    expect((await keys()).find((k) => k.name === 'delegate')?.scopes).toEqual([
      'runs:read',
      'keys:read',
      'keys:write',
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('with keys:read only, lists the keys without the form or any revoke button', async () => {
    const reader = await createScopedKey(t.http, ws.key, ['keys:read']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, reader.key, 'Ada', '/console/api-keys');
    await rowOf(page, ws.keyId).waitFor();
    await page.getByText('Creating and revoking keys needs the scope keys:write').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('table', { name: 'API keys' }).getByRole('button').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada', '/console/api-keys');
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Name', { exact: true }).fill(`phone ${XSS.svg}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByLabel('The new API key').waitFor();
      await page.getByRole('heading', { name: `New key “phone ${XSS.svg}”` }).waitFor();
      await expectInert(page);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
