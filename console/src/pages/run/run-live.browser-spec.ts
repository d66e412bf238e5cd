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
import { startTcpProxy } from '../../../../test/support/tcp-proxy';
import { waitFor } from '../../../../test/support/wait';
import {
  createDefinition,
  runEvents,
  startRun,
  waitForRun,
} from '../../../../test/support/workflows';

const HOSTILE = [
  '<img src=x onerror="window.__xss=1">',
  '<script>window.__xss=1</script>',
  '"><svg onload=window.__xss=1>',
];

/** How the JSON viewer shows a string: as JSON, quotes escaped. */
const asJson = (text: string) => JSON.stringify(text);

/** The event types in the page's event table, in order. */
function shownEventTypes(page: Page): Promise<string[]> {
  return page.locator('.events-table tbody .event-type').allTextContents();
}

async function expectNoXss(page: Page): Promise<void> {
  expect(await page.locator('img[src="x"], svg[onload], main script').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
}

describe('console Run page, live (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let orderDefinition: string;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    t = await createTestApp(fakeLlmEnv(openai, anthropic));
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http, { name: 'Acme operations' });
    openai.script('gpt-4o-mini', { text: 'Thank you, Ada!', inputTokens: 1200, outputTokens: 300 });
    orderDefinition = await createDefinition(
      t.http,
      ws.key,
      [
        {
          type: 'task',
          name: 'price',
          handler: 'transform',
          config: { expression: '{"total": 42, "note": note}' },
        },
        {
          type: 'external_event',
          name: 'await-payment',
          signalType: 'payment.received',
          outputKey: 'payment',
        },
        {
          type: 'llm',
          name: 'thank-you',
          model: 'openai:gpt-4o-mini',
          messages: [{ role: 'user', content: 'Thank {{customer}} for order {{price.total}}.' }],
        },
        { type: 'task', name: 'receipt', handler: 'noop' },
      ],
      { name: 'order-fulfilment', version: '3' },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it('shows a waiting run complete live: status, new events, step output and LLM calls, all as text', async () => {
    const runId = await startRun(t.http, ws.key, orderDefinition, {
      customer: 'Ada',
      note: HOSTILE[0],
    });
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    const header = page.locator('.run-header');
    await header.locator('.badge', { hasText: 'WAITING' }).waitFor();
    await page.getByText('Live updates: on.').waitFor();
    await header.getByRole('link', { name: 'order-fulfilment version 3' }).waitFor();
    await page.getByRole('button', { name: 'Resume…' }).waitFor();
    // The run input's hostile string, as text.
    await page.getByRole('group', { name: 'Run input' }).getByText(asJson(HOSTILE[0])).waitFor();
    await page.evaluate('window.__samePage = true');

    const resumed = await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'payment.received', payload: { note: HOSTILE[1], via: HOSTILE[2] } });
    expect(resumed.status).toBe(200);

    await header.locator('.badge', { hasText: 'COMPLETED' }).waitFor();
    await page.getByText('Live updates: the run is over.').waitFor();
    expect(await page.evaluate('window.__samePage')).toBe(true);
    expect(await page.getByRole('button', { name: /Resume|Cancel run|Retry/ }).count()).toBe(0);
    const events = await runEvents(t.http, ws.key, runId);
    await waitFor('every event in the list', async () =>
      JSON.stringify(await shownEventTypes(page)) === JSON.stringify(events.map((e) => e.eventType))
        ? true
        : undefined,
    );
    // The signal's hostile payload, in the event list.
    const signal = page.locator('.events-table tbody tr', { hasText: 'SIGNAL_RECEIVED' });
    await signal.getByText(asJson(HOSTILE[1])).waitFor();
    await signal.getByText(asJson(HOSTILE[2])).waitFor();

    // The LLM call, with its tokens and cost (gpt-4o-mini: $0.15 and $0.60 per million tokens).
    await page.locator('.run-header').getByText('$0.00036 (1 call)').waitFor();
    const call = page.locator('table[aria-label="LLM calls, oldest first"] tbody tr');
    await call.first().waitFor();
    expect(await call.count()).toBe(1);
    expect((await call.locator('td').allTextContents()).slice(0, 5)).toEqual([
      'thank-you',
      'openai:gpt-4o-mini',
      '1,200',
      '300',
      '$0.00036',
    ]);

    // The step drawer, from the timeline by keyboard.
    const priceRow = page.locator('.timeline-row', { hasText: 'price' });
    await priceRow.focus();
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Step price' });
    await drawer.waitFor();
    expect(new URL(page.url()).searchParams.get('step')).toMatch(/^[0-9a-f-]{36}$/);
    await drawer.getByRole('group', { name: 'Step output' }).getByText('42').waitFor();
    await drawer
      .getByRole('group', { name: 'Step output' })
      .getByText(asJson(HOSTILE[0]))
      .waitFor();
    await drawer
      .getByRole('group', { name: 'State before this step' })
      .getByText('"Ada"')
      .waitFor();
    await screenshot(page, 'run-step');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await page.waitForURL((url) => !url.searchParams.has('step'));

    await expectNoXss(page);
    await page.evaluate('document.activeElement.blur(); window.scrollTo(0, 0)');
    await screenshot(page, 'run');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('resumes a dropped stream from the last event: events recorded meanwhile appear once', async () => {
    const definitionId = await createDefinition(t.http, ws.key, [
      { type: 'external_event', name: 'first', signalType: 'a' },
      { type: 'external_event', name: 'second', signalType: 'b' },
    ]);
    const runId = await startRun(t.http, ws.key, definitionId, {});
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    // The browser reaches the service through a proxy that can drop every connection, as a network
    // would (Chromium's offline mode leaves an open event stream alone).
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(t.baseUrl).port) });
    const { page, context, problems } = await openConsole(browser, proxy.through(t.baseUrl));
    // Where each stream request asked to start: nowhere (the first), then after the last event seen.
    const resumedFrom: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (!request.url().includes('/events/stream')) return;
      void request
        .allHeaders()
        .then((headers) =>
          resumedFrom.push(
            headers['last-event-id'] ??
              new URL(request.url()).searchParams.get('lastEventId') ??
              undefined,
          ),
        );
    });
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByText('Live updates: on.').waitFor();
    const before = (await runEvents(t.http, ws.key, runId)).length;
    await waitFor('the recorded events in the list', async () =>
      (await shownEventTypes(page)).length === before ? true : undefined,
    );

    await proxy.cut('refuse');
    await page.getByText('Live updates: connection lost, reconnecting…').waitFor();
    const signalled = await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'a', payload: { step: 1 } });
    expect(signalled.status).toBe(200);
    await waitFor('the second wait', async () =>
      (await runEvents(t.http, ws.key, runId)).some(
        (e) => e.eventType === 'STEP_STARTED' && e.payload.stepName === 'second',
      )
        ? true
        : undefined,
    );
    expect((await shownEventTypes(page)).length).toBe(before);

    await proxy.restore();
    await page.getByText('Live updates: on.').waitFor();
    await page.locator('.events-table tbody tr', { hasText: 'SIGNAL_RECEIVED' }).waitFor();

    const finished = await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'b', payload: {} });
    expect(finished.status).toBe(200);
    await page.locator('.run-header .badge', { hasText: 'COMPLETED' }).waitFor();
    const events = await runEvents(t.http, ws.key, runId);
    await waitFor('the events, each once and in order', async () =>
      JSON.stringify(await shownEventTypes(page)) === JSON.stringify(events.map((e) => e.eventType))
        ? true
        : undefined,
    );
    expect(events.filter((e) => e.eventType === 'SIGNAL_RECEIVED')).toHaveLength(2);
    expect(resumedFrom[0]).toBeUndefined();
    expect(resumedFrom.length).toBeGreaterThan(1);
    for (const from of resumedFrom.slice(1)) expect(from).toMatch(/^\d+$/);
    expect(problems).toEqual([]);
    await context.close();
    await proxy.close();
  });

  it('has no serious accessibility violation at 1280 and 390 px, drawer open or not', async () => {
    const runId = await startRun(t.http, ws.key, orderDefinition, {
      customer: 'Grace',
      note: 'hi',
    });
    const doneId = await startRun(t.http, ws.key, orderDefinition, {
      customer: 'Alan',
      note: 'ok',
    });
    await waitForRun(t.http, ws.key, doneId, 'WAITING');
    const resumed = await t.http
      .post(`/v1/workflow-runs/${doneId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'payment.received', payload: { amount: 42 } });
    expect(resumed.status).toBe(200);
    await waitForRun(t.http, ws.key, doneId, 'COMPLETED');
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      // A finished run with its LLM call and events.
      await signIn(page, ws.key, 'Ada', `/console/runs/${doneId}`);
      await page.getByRole('region', { name: 'LLM calls table' }).waitFor();
      await page.getByRole('region', { name: 'Events table' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      // A waiting one, its step drawer and its resume dialog.
      await page.goto(`/console/runs/${runId}`);
      await page.getByText('Live updates: on.').waitFor();
      await page.locator('.timeline-row').first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      await page.locator('.timeline-row', { hasText: 'price' }).click();
      await page.getByRole('dialog', { name: 'Step price' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
      await page.getByRole('button', { name: 'Resume…' }).click();
      await page.getByRole('dialog', { name: 'Resume this run?' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
