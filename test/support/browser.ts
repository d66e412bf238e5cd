import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing)
 * through playwright-core, never a downloaded browser. CHROMIUM_PATH points elsewhere when needed.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Without the background-networking flag Chromium keeps dialling Google's hosts, refused here. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install chromium; .ci/run does) ` +
        'or point CHROMIUM_PATH at one',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /**
   * Script errors, failed assertions of the page's own code and Content-Security-Policy violations seen
   * so far. A hostile string that got executed, or a page that broke, shows up here.
   */
  problems: string[];
}

/** A fresh browser profile (no cookies) with one page, collecting the page's problems. */
export async function openConsole(
  browser: Browser,
  baseUrl: string,
  viewport: { width: number; height: number } = DESKTOP,
): Promise<ConsolePage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    // A 401/409 answer the page handles is logged by Chromium as a failed resource; those are expected.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('dialog', (dialog) => {
    problems.push(`unexpected native dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, problems };
}

/** Signs in through the sign-in form and waits for the page it leads to. */
export async function signIn(
  page: Page,
  apiKey: string,
  reviewerName: string,
  path = '/console/runs',
): Promise<void> {
  await page.goto(`/console/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByLabel('Your name').fill(reviewerName);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path.split('?')[0]);
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now (WCAG 2.1
 * A/AA rules and best practices). axe is evaluated through the DevTools protocol, so the page's CSP,
 * which forbids injected scripts, stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, not a function: this file is type-checked without the DOM's types.
  const violations = await page.evaluate<AxeViolation[]>(`
    axe
      .run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      })
      .then((result) =>
        result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.map((n) => JSON.stringify(n.target)),
        })),
      )
  `);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * A screenshot of the page. With UPDATE_SCREENSHOTS=1 it replaces the README's picture in docs/console
 * (that is how the README's screenshots are made); otherwise it goes to a temporary folder, so a test run
 * never changes the checkout.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir =
    process.env.UPDATE_SCREENSHOTS === '1'
      ? join(__dirname, '..', '..', 'docs', 'console')
      : join(tmpdir(), 'console-screenshots');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
