import { randomUUID } from 'node:crypto';
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
import { createDefinition } from '../../../../test/support/workflows';

const XSS = {
  img: '<img src=x onerror="window.__xss=1">',
  script: '<script>window.__xss=1</script>',
  svg: '"><svg onload=window.__xss=1>',
};

async function expectInert(page: Page): Promise<void> {
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.locator('main script').count()).toBe(0);
  expect(await page.locator('main svg[onload]').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
}

describe('console Definitions pages (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  const name = 'article-review';
  const hostileName = `review ${XSS.script}`;
  let v1: string;
  let v2: string;
  let hostile: string;
  let other: string;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    v1 = await createDefinition(
      t.http,
      ws.key,
      [{ type: 'task', name: 'draft', handler: 'noop' }],
      {
        name,
        version: '1',
        description: 'First cut: a draft only.',
      },
    );
    v2 = await createDefinition(
      t.http,
      ws.key,
      [
        {
          type: 'task',
          name: 'fetch-source',
          handler: 'http',
          config: { url: 'https://example.com/source' },
          outputKey: 'source',
        },
        {
          type: 'llm',
          name: 'draft',
          model: 'openai:gpt-4o-mini',
          fallbackModels: ['anthropic:claude-haiku-4-5'],
          messages: [{ role: 'user', content: 'Write an article from {{source.body}}' }],
        },
        {
          type: 'condition',
          name: 'long enough?',
          expression: '$length($.draft.text) > 500',
          then: 'review',
        },
        { type: 'external_event', name: 'wait-for-editor', signalType: 'editor.ready' },
        {
          type: 'approval',
          name: 'review',
          contentKey: 'draft.text',
          prompt: 'Is the article ready to publish?',
          regenerateFrom: 'draft',
          retry: { maxAttempts: 3 },
        },
        { type: 'task', name: 'publish', handler: 'noop' },
      ],
      {
        name,
        version: '2',
        description: 'Drafts an article with an LLM, has an editor review it, then publishes it.',
      },
    );
    hostile = await createDefinition(
      t.http,
      ws.key,
      [
        {
          type: 'llm',
          name: `draft ${XSS.img}`,
          model: 'openai:gpt-4o-mini',
          messages: [{ role: 'user', content: 'Write it' }],
        },
        {
          type: 'approval',
          name: XSS.svg,
          contentKey: 'draft',
          prompt: XSS.script,
          regenerateFrom: `draft ${XSS.img}`,
          retry: { maxAttempts: 2 },
        },
      ],
      { name: hostileName, version: XSS.img, description: `Hostile ${XSS.svg}` },
    );
    other = await createDefinition(t.http, ws.key, [{ type: 'wait', name: 'nap', durationMs: 1 }], {
      name: 'nightly',
      version: '7',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists definitions grouped by name, versions newest first, hostile text inert', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/definitions');
    const group = page.getByRole('region', { name });
    await group.getByRole('heading', { name }).waitFor();
    expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual([
      'nightly',
      hostileName,
      name,
    ]);
    const versions = group.locator('tbody tr');
    expect(await versions.count()).toBe(2);
    expect(await versions.nth(0).locator('a').innerText()).toBe('2');
    expect(await versions.nth(0).locator('a').getAttribute('href')).toBe(
      `/console/definitions/${v2}`,
    );
    expect(await versions.nth(1).locator('a').getAttribute('href')).toBe(
      `/console/definitions/${v1}`,
    );
    const bad = page.getByRole('region', { name: hostileName });
    await bad.getByText(`Hostile ${XSS.svg}`).waitFor();
    await bad.getByRole('link', { name: XSS.img }).waitFor();
    await expectInert(page);

    // The name filter lives in the URL.
    await page.getByLabel('Name contains').fill('night');
    await page.waitForURL((url) => url.searchParams.get('q') === 'night');
    await page.reload();
    expect(await page.getByLabel('Name contains').inputValue()).toBe('night');
    expect(await page.getByRole('link', { name: 'nightly version 7' }).getAttribute('href')).toBe(
      `/console/definitions/${other}`,
    );
    expect(await page.getByRole('heading', { name }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a version: steps in order with type and fields, jumps as links to their target step', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/definitions/${v2}`);
    await page.getByRole('heading', { level: 1, name: `${name} version 2` }).waitFor();
    await page.locator('p.definition-description').getByText('Drafts an article').waitFor();
    await screenshot(page, 'definition');
    const steps = page.locator('.step-list > li');
    expect(await steps.locator('h3').allInnerTexts()).toEqual([
      '1. fetch-source task',
      '2. draft llm',
      '3. long enough? condition',
      '4. wait-for-editor external_event',
      '5. review approval',
      '6. publish task',
    ]);
    await steps.nth(0).getByText('http', { exact: true }).waitFor();
    await steps.nth(1).getByText('openai:gpt-4o-mini').waitFor();
    await steps.nth(1).getByText('anthropic:claude-haiku-4-5').waitFor();
    await steps.nth(3).getByText('editor.ready').waitFor();
    await steps.nth(4).getByText('draft.text').waitFor();

    // condition: then -> review (step 5), else -> the next step by default (step 4).
    const jumps = steps.nth(2).getByRole('list', { name: 'Jumps of step 3' });
    expect(await jumps.locator('li').allInnerTexts()).toEqual([
      'then → step 5: review',
      'else → step 4: wait-for-editor (default)',
    ]);
    // approval: a rejection goes back to regenerateFrom; following a jump moves the focus there.
    await steps.nth(4).getByRole('link', { name: 'step 2: draft' }).click();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe(
      'step-2',
    );
    await jumps.getByRole('link', { name: 'step 5: review' }).click();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe(
      'step-5',
    );

    expect(
      await page.getByRole('link', { name: 'Runs of this version' }).getAttribute('href'),
    ).toBe(`/console/runs?definitionId=${v2}`);
    // The other version and the full JSON.
    expect(
      await page
        .getByRole('navigation', { name: 'Versions of this definition' })
        .getByRole('link', { name: '1' })
        .getAttribute('href'),
    ).toBe(`/console/definitions/${v1}`);
    await page.getByRole('group', { name: 'The definition as the API answers it' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows hostile names, descriptions, versions and step names as text', async () => {
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/definitions/${hostile}`);
    await page
      .getByRole('heading', { level: 1, name: `${hostileName} version ${XSS.img}` })
      .waitFor();
    await page.locator('p.definition-description').getByText(`Hostile ${XSS.svg}`).waitFor();
    const steps = page.locator('.step-list > li');
    expect(await steps.locator('h3').allInnerTexts()).toEqual([
      `1. draft ${XSS.img} llm`,
      `2. ${XSS.svg} approval`,
    ]);
    await steps.nth(1).getByText(XSS.script).waitFor();
    await steps
      .nth(1)
      .getByRole('link', { name: `step 1: draft ${XSS.img}` })
      .click();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe(
      'step-1',
    );
    await expectInert(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers an unknown or foreign definition with "not found"', async () => {
    const stranger = await createWorkspaceWithKey(t.http);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, stranger.key, 'Eve', `/console/definitions/${v2}`);
    await page.getByRole('heading', { name: 'Definition not found' }).waitFor();
    await page.goto(`/console/definitions/${randomUUID()}`);
    await page.getByRole('heading', { name: 'Definition not found' }).waitFor();
    await page.goto('/console/definitions');
    await page.getByText('No workflow definitions yet').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada', '/console/definitions');
      await page.getByRole('heading', { name: 'nightly' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`/console/definitions/${v2}`);
      await page.getByRole('heading', { name: 'Steps' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`/console/definitions/${hostile}`);
      await page.getByRole('heading', { name: 'Steps' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .map((el) => el.tagName + '.' + el.className)`);
      expect(wide).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
