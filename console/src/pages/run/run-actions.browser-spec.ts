import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import { launchChromium, openConsole, signIn } from '../../../../test/support/browser';
import { createWorkspaceWithKey, type WorkspaceWithKey } from '../../../../test/support/factories';
import { waitFor } from '../../../../test/support/wait';
import {
  createDefinition,
  getRun,
  runEvents,
  startRun,
  waitForRun,
} from '../../../../test/support/workflows';

/** The event types in the page's event table, in order. */
function shownEventTypes(page: Page): Promise<string[]> {
  return page.locator('.events-table tbody .event-type').allTextContents();
}

async function untilShownTypes(page: Page, types: string[]): Promise<void> {
  await waitFor(`events table showing ${types.join(', ')}`, async () =>
    JSON.stringify(await shownEventTypes(page)) === JSON.stringify(types) ? true : undefined,
  );
}

describe('console Run page, actions and filters (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let ws: WorkspaceWithKey;
  let waitingDefinition: string;
  let brokenDefinition: string;

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(t.http);
    waitingDefinition = await createDefinition(
      t.http,
      ws.key,
      [
        {
          type: 'external_event',
          name: 'await-payment',
          signalType: 'payment.received',
          outputKey: 'payment',
        },
        { type: 'task', name: 'receipt', handler: 'noop' },
      ],
      { name: 'payment-intake', version: '1' },
    );
    brokenDefinition = await createDefinition(
      t.http,
      ws.key,
      [
        { type: 'task', name: 'prepare', handler: 'noop' },
        { type: 'task', name: 'sync', handler: 'no.such.handler' },
      ],
      { name: 'invoice-sync', version: '1' },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function waitingRun(): Promise<string> {
    const runId = await startRun(t.http, ws.key, waitingDefinition, {});
    await waitForRun(t.http, ws.key, runId, 'WAITING');
    return runId;
  }

  it('cancels a waiting run only once confirmed', async () => {
    const runId = await waitingRun();
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByText('Live updates: on.').waitFor();
    expect(await page.getByRole('button', { name: 'Retry…' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Cancel run…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');

    await page.getByRole('button', { name: 'Cancel run…' }).click();
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('status').getByText('The run was cancelled.').waitFor();
    await page.locator('.run-header .badge', { hasText: 'CANCELLED' }).waitFor();
    expect((await getRun(t.http, ws.key, runId)).status).toBe('CANCELLED');
    await page.locator('.events-table tbody tr', { hasText: 'WORKFLOW_CANCELLED' }).waitFor();
    expect(await page.getByRole('button', { name: /Cancel run|Resume/ }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('retries a failed run through the dialog and follows the retry live', async () => {
    const runId = await startRun(t.http, ws.key, brokenDefinition, {});
    await waitForRun(t.http, ws.key, runId, 'FAILED');
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.locator('.run-header .badge', { hasText: 'FAILED' }).waitFor();
    await page.getByRole('heading', { name: 'Why it failed' }).waitFor();
    expect(await page.getByRole('button', { name: /Cancel run|Resume/ }).count()).toBe(0);

    await page.getByRole('button', { name: 'Retry…' }).click();
    await page
      .getByRole('dialog', { name: 'Retry this run?' })
      .getByRole('button', { name: 'Retry run' })
      .click();
    await page.getByRole('status').getByText('The run is retried from its failed step.').waitFor();
    // The unknown handler fails again: a second step run of "sync", and the retry's events, live.
    await waitFor('the retry to fail again', async () => {
      const events = await runEvents(t.http, ws.key, runId);
      return events.filter((e) => e.eventType === 'WORKFLOW_FAILED').length === 2
        ? events
        : undefined;
    });
    const events = await runEvents(t.http, ws.key, runId);
    expect(events.some((e) => e.eventType === 'STEP_RETRYING' && e.payload.manual === true)).toBe(
      true,
    );
    await untilShownTypes(
      page,
      events.map((e) => e.eventType),
    );
    await waitFor('two step runs of sync', async () =>
      (await page.locator('.timeline-row', { hasText: 'sync' }).count()) === 2 ? true : undefined,
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('resumes with a JSON payload, refusing invalid JSON in the browser', async () => {
    const runId = await waitingRun();
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByRole('button', { name: 'Resume…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resume this run?' });
    expect(await dialog.getByLabel('Signal type').inputValue()).toBe('payment.received');
    const payload = dialog.getByLabel('Payload (JSON object)');
    const send = dialog.getByRole('button', { name: 'Send signal' });

    await payload.fill('{"amount": ');
    await dialog
      .getByRole('alert')
      .getByText(/^Not valid JSON: /)
      .waitFor();
    expect(await payload.getAttribute('aria-invalid')).toBe('true');
    expect(await send.isDisabled()).toBe(true);
    await payload.fill('[12]');
    await dialog
      .getByRole('alert')
      .getByText('The payload must be a JSON object ({…}), not an array.')
      .waitFor();
    expect(await send.isDisabled()).toBe(true);
    await dialog.getByLabel('Signal type').fill('');
    await payload.fill('{"amount": 12, "currency": "EUR"}');
    expect(await send.isDisabled()).toBe(true);
    await dialog.getByLabel('Signal type').fill('payment.received');
    await send.click();

    await page.locator('.run-header .badge', { hasText: 'COMPLETED' }).waitFor();
    const run = await getRun(t.http, ws.key, runId);
    expect(run.status).toBe('COMPLETED');
    expect(run.output?.payment).toMatchObject({
      signalType: 'payment.received',
      payload: { amount: 12, currency: 'EUR' },
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows the API's refusal when the run moved on meanwhile, and the run as it is now", async () => {
    const runId = await waitingRun();
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await page.getByRole('button', { name: 'Resume…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resume this run?' });
    await dialog.getByLabel('Signal type').fill('payment.refunded');
    await dialog.getByRole('button', { name: 'Send signal' }).click();
    await page
      .getByRole('alert')
      .getByText(
        'The resume was refused: signal type mismatch: the run is waiting for "payment.received"',
      )
      .waitFor();
    expect((await getRun(t.http, ws.key, runId)).status).toBe('WAITING');

    // Cancelled elsewhere while the dialog is open: the 409's message, then the run as it is.
    await page.getByRole('button', { name: 'Cancel run…' }).click();
    const cancelled = await t.http
      .post(`/v1/workflow-runs/${runId}/cancel`)
      .set('x-api-key', ws.key);
    expect(cancelled.status).toBe(200);
    await page
      .getByRole('dialog', { name: 'Cancel this run?' })
      .getByRole('button', { name: 'Cancel run' })
      .click();
    await page
      .getByRole('alert')
      .getByText('The cancel was refused: run is CANCELLED and cannot be cancelled')
      .waitFor();
    await page.locator('.run-header .badge', { hasText: 'CANCELLED' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('filters events by type and failures only, in the URL', async () => {
    const runId = await startRun(t.http, ws.key, brokenDefinition, {});
    await waitForRun(t.http, ws.key, runId, 'FAILED');
    const events = await runEvents(t.http, ws.key, runId);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, ws.key, 'Ada', `/console/runs/${runId}`);
    await untilShownTypes(
      page,
      events.map((e) => e.eventType),
    );

    await page.getByLabel('Event type').selectOption('STEP_COMPLETED');
    await page.waitForURL((url) => url.searchParams.get('type') === 'STEP_COMPLETED');
    await untilShownTypes(page, ['STEP_COMPLETED']);
    await page.getByText(`Showing 1 of ${events.length} events`).waitFor();

    await page.getByLabel('Event type').selectOption('');
    await page.getByLabel('Failed only').check();
    await page.waitForURL(
      (url) => url.searchParams.get('failed') === '1' && !url.searchParams.has('type'),
    );
    await untilShownTypes(page, ['STEP_FAILED', 'WORKFLOW_FAILED']);
    await page.reload();
    await untilShownTypes(page, ['STEP_FAILED', 'WORKFLOW_FAILED']);
    expect(await page.getByLabel('Failed only').isChecked()).toBe(true);

    await page.getByLabel('Event type').selectOption('STEP_STARTED');
    await page.getByText('No events match these filters.').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
