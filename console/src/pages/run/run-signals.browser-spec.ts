import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import {
  DESKTOP,
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
import { waitFor } from '../../../../test/support/wait';
import {
  createDefinition,
  getRun,
  runEvents,
  startRun,
  waitForRun,
} from '../../../../test/support/workflows';

/** The buffered signals the page lists, as [type, payload preview, size]. */
async function shownSignals(page: Page): Promise<string[][]> {
  const rows = page.locator('.signals-table tbody tr');
  const shown: string[][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const cells = await rows.nth(i).locator('td').allTextContents();
    shown.push([cells[0], cells[2], cells[3]]);
  }
  return shown;
}

async function untilSignals(page: Page, expected: string[][]): Promise<void> {
  await waitFor(`buffered signals ${JSON.stringify(expected)}`, async () =>
    JSON.stringify(await shownSignals(page)) === JSON.stringify(expected) ? true : undefined,
  );
}

const HOSTILE = '<img src=x onerror="window.__xss=1">';

describe('console Run page, signals (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  let definitionId: string;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    definitionId = await createDefinition(
      t.http,
      ws.key,
      [
        // Waits until resumed: signals sent meanwhile are buffered.
        { type: 'wait', name: 'gate' },
        { type: 'external_event', name: 'await-payment', signalType: 'payment.received' },
        { type: 'external_event', name: 'await-shipping', signalType: 'shipped' },
      ],
      { name: 'early-signals', version: '1' },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function gatedRun(): Promise<string> {
    const runId = await startRun(t.http, ws.key, definitionId, {});
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    return runId;
  }

  it('sends signals (checked before sending), lists the buffered ones, and follows the steps that take them', async () => {
    const runId = await gatedRun();
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByRole('heading', { name: 'Buffered signals' }).waitFor();
    await page.getByText('No signal is waiting for a step.').waitFor();

    await page.getByRole('button', { name: 'Send signal…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a signal' });
    const type = dialog.getByLabel('Signal type');
    const payload = dialog.getByLabel('Payload (JSON)');
    const send = dialog.getByRole('button', { name: 'Send signal' });
    // The run waits on a wait step: no type is expected, and an empty one is not sent.
    expect(await type.inputValue()).toBe('');
    expect(await send.isDisabled()).toBe(true);
    await type.fill('payment.received');
    await payload.fill('{"amount": ');
    await dialog
      .getByRole('alert')
      .getByText(/^Not valid JSON: /)
      .waitFor();
    expect(await payload.getAttribute('aria-invalid')).toBe('true');
    expect(await send.isDisabled()).toBe(true);
    await type.fill('x'.repeat(101));
    await payload.fill('{"amount": 12}');
    await dialog
      .getByText('A signal type has at most 100 characters (this one has 101).')
      .waitFor();
    expect(await send.isDisabled()).toBe(true);
    await type.fill('payment.received');
    await send.click();
    await page
      .getByRole('status')
      .getByText(
        'The "payment.received" signal was buffered: the next external_event step of its type takes it.',
      )
      .waitFor();
    await untilSignals(page, [['payment.received', '{"amount":12}', '13 B']]);

    // Any JSON value is a payload; the preview shows it as text, never as markup.
    await page.getByRole('button', { name: 'Send signal…' }).click();
    await type.fill('shipped');
    await payload.fill(JSON.stringify(HOSTILE));
    await send.click();
    await untilSignals(page, [
      ['payment.received', '{"amount":12}', '13 B'],
      ['shipped', JSON.stringify(HOSTILE), `${JSON.stringify(HOSTILE).length} B`],
    ]);
    const buffered = (await getRun(t.http, ws.key, runId)).bufferedSignals;
    expect(buffered.map((s) => s.signalType)).toEqual(['payment.received', 'shipped']);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();

    // The gate opens: both steps take their signals at once, live on the page, and the run ends.
    const resumed = await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'go' });
    expect(resumed.status).toBe(200);
    await page.locator('.run-header .badge', { hasText: 'COMPLETED' }).waitFor();
    // An ended run holds no signal and takes none: the section stays only for what was said in it.
    await page.getByText('None: the run has ended.').waitFor();
    expect(await page.getByRole('button', { name: 'Send signal…' }).count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Steps' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Buffered signals' }).count()).toBe(0);
    const run = await getRun(t.http, ws.key, runId);
    expect(run.output).toMatchObject({
      'await-payment': { signalType: 'payment.received', payload: { amount: 12 } },
      'await-shipping': { signalType: 'shipped', payload: HOSTILE },
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says when a signal was delivered to the waiting step, and when the API refused it', async () => {
    const runId = await gatedRun();
    await t.http
      .post(`/v1/workflow-runs/${runId}/resume`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'go' })
      .expect(200);
    await waitFor('the run to wait for the payment', async () => {
      const run = await getRun(t.http, ws.key, runId);
      return run.status === 'WAITING' && run.currentStepIndex === 1 ? true : undefined;
    });
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByRole('button', { name: 'Send signal…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a signal' });
    // The step it waits on names its type.
    expect(await dialog.getByLabel('Signal type').inputValue()).toBe('payment.received');
    await dialog.getByText('The waiting step expects "payment.received".').waitFor();
    await dialog.getByLabel('Payload (JSON)').fill('[1, 2]');
    await dialog.getByRole('button', { name: 'Send signal' }).click();
    await page
      .getByRole('status')
      .getByText(
        'The "payment.received" signal was delivered to the waiting step; the run goes on.',
      )
      .waitFor();
    await waitFor('the run to wait for the shipping', async () =>
      (await getRun(t.http, ws.key, runId)).currentStepIndex === 2 ? true : undefined,
    );

    // Cancelled elsewhere while the dialog is open: the API's 409, and the run as it is now.
    await page.getByRole('button', { name: 'Send signal…' }).click();
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
    await dialog.getByLabel('Signal type').fill('shipped');
    await dialog.getByRole('button', { name: 'Send signal' }).click();
    await page
      .getByRole('alert')
      .getByText(
        'The signal was refused: run is CANCELLED; signals are accepted only until the run ends',
      )
      .waitFor();
    await page.locator('.run-header .badge', { hasText: 'CANCELLED' }).waitFor();
    // The refusal stays in view, without a way to send another.
    await page.getByText('None: the run has ended.').waitFor();
    expect(await page.getByRole('button', { name: 'Send signal…' }).count()).toBe(0);
    expect(
      await page.getByText('The signal was refused: run is CANCELLED', { exact: false }).count(),
    ).toBe(1);
    const types = (await runEvents(t.http, ws.key, runId)).map((e) => e.eventType);
    expect(types.filter((type) => type === 'SIGNAL_RECEIVED')).toHaveLength(2);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists the buffered signals to a key with runs:read only, without a way to send one', async () => {
    const runId = await gatedRun();
    await t.http
      .post(`/v1/workflow-runs/${runId}/signals`)
      .set('x-api-key', ws.key)
      .send({ signalType: 'payment.received', payload: { amount: 5 } })
      .expect(202);
    const reader = await createScopedKey(t.http, ws.key, ['runs:read']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, reader.key, 'Rita', `/console/runs/${runId}`);
    await untilSignals(page, [['payment.received', '{"amount":5}', '12 B']]);
    await page.getByText('Sending a signal needs the scope runs:write').waitFor();
    expect(await page.getByRole('button', { name: 'Send signal…' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
  });

  it('is accessible and fits a phone, with signals listed and the form open', async () => {
    const runId = await gatedRun();
    for (const [signalType, payload] of [
      ['payment.received', { amount: 12, note: 'a payload long enough to be cut '.repeat(10) }],
      ['a.rather.long.signal.type.name.that.has.to.wrap.somewhere', ['x']],
    ] as const) {
      const res = await t.http
        .post(`/v1/workflow-runs/${runId}/signals`)
        .set('x-api-key', ws.key)
        .send({ signalType, payload });
      expect(res.status).toBe(202);
    }
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, t.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
      await page.getByRole('region', { name: 'Buffered signals table' }).waitFor();
      const preview = await page.locator('.signal-preview').first().textContent();
      expect(preview?.endsWith('…')).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      await page.getByRole('button', { name: 'Send signal…' }).click();
      await page.getByRole('dialog', { name: 'Send a signal' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
    await t.http.post(`/v1/workflow-runs/${runId}/cancel`).set('x-api-key', ws.key).expect(200);
  });
});
