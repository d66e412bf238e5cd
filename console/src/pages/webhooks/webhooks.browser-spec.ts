import type { Browser, Page } from 'playwright-core';
import type TestAgent from 'supertest/lib/agent';
import {
  DESKTOP,
  launchChromium,
  openConsole,
  PHONE,
  screenshot,
  seriousViolations,
  signIn,
} from '../../../../test/support/browser';
import { fileDatabaseUrl } from '../../../../test/support/database';
import {
  createScopedKey,
  createWorkspaceWithKey,
  type WorkspaceWithKey,
} from '../../../../test/support/factories';
import { startHttpsReceiver, type HttpsReceiver } from '../../../../test/support/https-receiver';
import { checkedAgent } from '../../../../test/support/openapi-check';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from '../../../../test/support/service-process';
import {
  createDefinition,
  eventually,
  startRun,
  waitForRun,
} from '../../../../test/support/workflows';

const XSS_PATH = '/hooks/<script>window.__xss=1</script>/"><svg/onload=window.__xss=1>';

interface DeliveryView {
  id: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
}

async function expectInert(page: Page): Promise<void> {
  expect(await page.locator('main script').count()).toBe(0);
  expect(await page.locator('main svg[onload]').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
}

/**
 * The service runs as its own process here (like webhook-delivery.e2e-spec.ts) so that it trusts the
 * HTTPS receiver's self-signed certificate through NODE_EXTRA_CA_CERTS; one attempt per delivery, so a
 * refused delivery fails at once and can be redelivered from the page.
 */
describe('console Webhooks pages (browser)', () => {
  let receiver: HttpsReceiver;
  let service: ServiceProcess;
  let http: TestAgent;
  let browser: Browser;
  let ws: WorkspaceWithKey;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const port = await freePort();
    service = startService({
      env: {
        PORT: String(port),
        DATABASE_URL: await fileDatabaseUrl(),
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '200',
        EXECUTOR_CONCURRENCY: '4',
        WEBHOOK_RETRY_DELAYS_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    await waitUntilReady(service, 30_000);
    http = checkedAgent(service.baseUrl);
    browser = await launchChromium();
    ws = await createWorkspaceWithKey(http);
  });
  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await receiver?.close();
  });

  async function deliveries(hookId: string): Promise<DeliveryView[]> {
    const res = await http.get(`/v1/webhooks/${hookId}/deliveries`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return res.body.data as DeliveryView[];
  }

  async function hookIdOf(url: string): Promise<string> {
    const res = await http.get('/v1/webhooks').set('x-api-key', ws.key);
    const hook = (res.body.data as { id: string; url: string }[]).find((h) => h.url === url);
    if (!hook) throw new Error(`no webhook for ${url}`);
    return hook.id;
  }

  it('registers a webhook (secret shown once), then redelivers its failed delivery from the log', async () => {
    // The receiver refuses the first request and accepts the next one.
    const url = receiver.route('/hooks/flaky', (n) =>
      n === 1 ? { status: 500, body: 'try later' } : { status: 200 },
    );
    const { page, context, problems } = await openConsole(browser, service.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/webhooks');
    await page.getByText('No webhooks yet').waitFor();

    // The form checks before asking the service.
    await page.getByLabel('HTTPS URL').fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Register webhook' }).click();
    await page.getByText('The URL must start with https://.').waitFor();
    await page.getByText('Choose at least one event.').waitFor();

    await page.getByLabel('HTTPS URL').fill(url);
    await page.getByLabel('workflow.completed').check();
    await page.getByLabel('workflow.failed').check();
    await page.getByRole('button', { name: 'Register webhook' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.setSecret('/hooks/flaky', secret);
    const hookId = await hookIdOf(url);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: url }) });
    await row.getByText('workflow.failed').waitFor();
    await row.getByText('active').waitFor();

    // A run completes: its delivery is refused once (one attempt configured) and fails.
    const definitionId = await createDefinition(http, ws.key, [
      { type: 'task', name: 'work', handler: 'noop' },
    ]);
    const runId = await startRun(http, ws.key, definitionId);
    await waitForRun(http, ws.key, runId, 'COMPLETED');
    const [failed] = await eventually(
      async () => {
        const list = await deliveries(hookId);
        return list[0]?.status === 'failed' ? list : undefined;
      },
      20_000,
      'the failed delivery',
    );
    expect(failed).toEqual(expect.objectContaining({ attempts: 1, lastStatusCode: 500 }));

    // The secret was shown once: the webhook's own page never shows it.
    await page.getByRole('link', { name: url }).click();
    await page.waitForURL((u) => u.pathname === `/console/webhooks/${hookId}`);
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL((u) => u.searchParams.get('status') === 'failed');
    await page.reload();
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
    const entry = page.locator(`tr[data-delivery-id="${failed.id}"]`);
    // After the reload the log is read again: wait for the row (allInnerTexts does not wait).
    await entry.waitFor();
    expect((await entry.locator('th, td').allInnerTexts()).slice(0, 4)).toEqual([
      expect.stringContaining('workflow.completed'),
      'failed',
      '1',
      '500',
    ]);
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'webhook');

    await entry.getByRole('button', { name: /^Redeliver/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Send this delivery again?' });
    await dialog.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('is queued again').waitFor();
    await eventually(
      async () => {
        const list = await deliveries(hookId);
        return list[0]?.status === 'delivered' ? list : undefined;
      },
      20_000,
      'the redelivery',
    );
    expect(receiver.received('/hooks/flaky').map((d) => d.replied)).toEqual([
      { status: 500, body: 'try later' },
      { status: 200 },
    ]);
    expect(receiver.received('/hooks/flaky').every((d) => d.hmacValid && d.standardValid)).toBe(
      true,
    );

    await page.getByLabel('Status').selectOption('delivered');
    await page
      .locator(`tr[data-delivery-id="${failed.id}"]`)
      .getByText('delivered', { exact: true })
      .waitFor();
    expect(
      await page.locator(`tr[data-delivery-id="${failed.id}"]`).getByRole('button').count(),
    ).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a hostile URL path as text and deletes a webhook after confirmation', async () => {
    const url = `https://127.0.0.1:${receiver.port}${XSS_PATH}`;
    const created = await http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ url, events: ['approval.requested'] });
    expect(created.status).toBe(201);
    const hookId = created.body.data.id as string;

    const { page, context, problems } = await openConsole(browser, service.baseUrl);
    await signIn(page, ws.key, 'Ada', '/console/webhooks');
    await page.getByRole('link', { name: url }).waitFor();
    await expectInert(page);
    await page.goto(`/console/webhooks/${hookId}`);
    await page.getByRole('heading', { level: 1, name: url }).waitFor();
    await page.getByText('No deliveries yet').waitFor();
    await expectInert(page);

    await page.getByRole('button', { name: 'Delete webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const still = await http.get('/v1/webhooks').set('x-api-key', ws.key);
    expect((still.body.data as { id: string }[]).some((h) => h.id === hookId)).toBe(true);

    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.waitForURL((u) => u.pathname === '/console/webhooks');
    const after = await http.get('/v1/webhooks').set('x-api-key', ws.key);
    expect((after.body.data as { id: string }[]).some((h) => h.id === hookId)).toBe(false);
    expect(await page.getByRole('link', { name: url }).count()).toBe(0);

    await page.goto(`/console/webhooks/${hookId}`);
    await page.getByRole('heading', { name: 'Webhook not found' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('with webhooks:read only, shows the webhooks and their deliveries without register, delete or redeliver', async () => {
    const own = await createWorkspaceWithKey(http);
    const url = receiver.route('/hooks/always-down', () => ({ status: 503 }));
    const created = await http
      .post('/v1/webhooks')
      .set('x-api-key', own.key)
      .send({ url, events: ['workflow.completed'] });
    expect(created.status).toBe(201);
    const hookId = created.body.data.id as string;
    const definitionId = await createDefinition(http, own.key, [
      { type: 'task', name: 'work', handler: 'noop' },
    ]);
    const runId = await startRun(http, own.key, definitionId);
    await waitForRun(http, own.key, runId, 'COMPLETED');
    const [failed] = await eventually(
      async () => {
        const res = await http.get(`/v1/webhooks/${hookId}/deliveries`).set('x-api-key', own.key);
        const list = res.body.data as DeliveryView[];
        return list[0]?.status === 'failed' ? list : undefined;
      },
      20_000,
      'the failed delivery',
    );

    const reader = await createScopedKey(http, own.key, ['webhooks:read']);
    const { page, context, problems } = await openConsole(browser, service.baseUrl);
    await signIn(page, reader.key, 'Ada', '/console/webhooks');
    await page.getByRole('link', { name: url }).waitFor();
    await page.getByText('Registering a webhook needs the scope webhooks:write').waitFor();
    expect(await page.getByRole('button', { name: 'Register webhook' }).count()).toBe(0);

    await page.getByRole('link', { name: url }).click();
    await page.waitForURL((u) => u.pathname === `/console/webhooks/${hookId}`);
    const entry = page.locator(`tr[data-delivery-id="${failed.id}"]`);
    await entry.getByText('failed', { exact: true }).waitFor();
    expect(await entry.getByRole('button').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete webhook' }).count()).toBe(0);
    await page.getByText('Deleting the webhook and redelivering need the scope').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
    const hookId = await hookIdOf(receiver.route('/hooks/flaky', () => ({ status: 200 })));
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openConsole(browser, service.baseUrl, viewport);
      await signIn(page, ws.key, 'Ada', '/console/webhooks');
      await page.getByRole('heading', { name: 'Registered webhooks' }).waitFor();
      await page.getByRole('table', { name: 'Webhooks' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`/console/webhooks/${hookId}`);
      await page.getByRole('table', { name: 'Deliveries' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
