import type { Browser, Page } from 'playwright-core';
import type { ApprovalRequest, Envelope } from '../../../../client';
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
import { waitFor } from '../../../../test/support/wait';
import { createDefinition, startRun, waitForRun } from '../../../../test/support/workflows';

const REVIEWER = 'Rita Reviewer';
const HOSTILE_IMG = '<img src=x onerror="window.__xss=1">';
const HOSTILE_SCRIPT = '<script>window.__xss=1</script>';
const HOSTILE_SVG = '"><svg onload=window.__xss=1>';

interface Draft {
  step: string;
  prompt: string;
  content: Record<string, unknown>;
}

describe('approvals inbox (browser)', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    // Two requests per answer: every queue of three is read in parts, through the Link header.
    t = await createTestApp({ APPROVAL_LIST_MAX_ITEMS: '2' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /**
   * Paused runs, one per draft, in this order (so the oldest request is the first draft's): a transform
   * step puts the content in the state, the approval step reviews it, a publish step copies it on.
   */
  async function pausedRequests(ws: WorkspaceWithKey, drafts: Draft[]): Promise<ApprovalRequest[]> {
    const requests: ApprovalRequest[] = [];
    for (const draft of drafts) {
      const definitionId = await createDefinition(t.http, ws.key, [
        { type: 'task', name: 'write', handler: 'transform', config: { expression: 'draft' } },
        { type: 'approval', name: draft.step, contentKey: 'write', prompt: draft.prompt },
        {
          type: 'task',
          name: 'publish',
          handler: 'transform',
          config: { expression: '{ "published": write }' },
        },
      ]);
      const runId = await startRun(t.http, ws.key, definitionId, { draft: draft.content });
      await waitForRun(t.http, ws.key, runId, 'PAUSED');
      requests.push(
        await waitFor(`the approval request of run ${runId}`, async () => {
          const res = await t.http
            .get('/v1/approval-requests?pending=true')
            .set('x-api-key', ws.key);
          return (res.body as Envelope<ApprovalRequest[]>).data.find(
            (r) => r.workflowRunId === runId,
          );
        }),
      );
    }
    return requests;
  }

  async function request(ws: WorkspaceWithKey, id: string): Promise<ApprovalRequest> {
    const res = await t.http.get(`/v1/approval-requests/${id}`).set('x-api-key', ws.key);
    expect(res.status).toBe(200);
    return (res.body as Envelope<ApprovalRequest>).data;
  }

  const drafts = (n: number, prefix = 'review'): Draft[] =>
    Array.from({ length: n }, (_, i) => ({
      step: `${prefix}-${i + 1}`,
      prompt: `Publish draft ${i + 1}?`,
      content: { title: `Draft ${i + 1}`, body: `Body of draft ${i + 1}.` },
    }));

  /** The selected request's id, as the URL holds it. */
  const selectedId = (page: Page) => new URL(page.url()).searchParams.get('id');

  const queueItems = (page: Page) => page.locator('.approval-item');

  async function openInbox(ws: WorkspaceWithKey, viewport = DESKTOP) {
    const opened = await openConsole(browser, t.baseUrl, viewport);
    await signIn(opened.page, ws.key, REVIEWER, '/console/approvals');
    return opened;
  }

  /** The nav badge's number (0 when the badge is gone). */
  async function badge(page: Page): Promise<number> {
    // allTextContents does not wait: the badge may go away between two reads.
    const texts = await page.locator('.sidenav .count-badge').allTextContents();
    return texts.length === 0 ? 0 : Number(texts[0]);
  }

  async function waitForBadge(page: Page, n: number): Promise<void> {
    await waitFor(`the pending badge to show ${n}`, async () =>
      (await badge(page)) === n ? true : undefined,
    );
  }

  it('lists pending requests oldest first and decides them by mouse: approve, reject with a comment, edit with a diff', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first, second, third] = await pausedRequests(ws, drafts(3));
    const { page, context, problems } = await openInbox(ws);

    await page.getByRole('heading', { name: 'Waiting for a decision (3)' }).waitFor();
    expect(await queueItems(page).locator('.approval-step').allTextContents()).toEqual([
      'review-1',
      'review-2',
      'review-3',
    ]);
    const row = queueItems(page).first();
    await row.getByText('Publish draft 1?').waitFor();
    await row.getByText('{"body":"Body of draft 1.","title":"Draft 1"}').waitFor();
    await row.locator('time').waitFor();
    expect(await row.getByRole('link', { name: /^Run / }).getAttribute('href')).toBe(
      `/console/runs/${first.workflowRunId}`,
    );
    // The oldest is selected at once, in the URL, with its full content beside the list.
    await waitFor('the first request selected', () =>
      selectedId(page) === first.id ? true : undefined,
    );
    const detail = page.locator('#approval-detail');
    await detail.getByRole('heading', { name: 'review-1' }).waitFor();
    await detail
      .getByRole('group', { name: 'Content under review' })
      .getByText('"Body of draft 1."')
      .waitFor();
    await waitForBadge(page, 3);

    // Approve.
    await detail.getByRole('button', { name: /^Approve/ }).click();
    const approve = page.getByRole('dialog', { name: 'Approve this request?' });
    await approve.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').getByText('Approved: review-1.').waitFor();
    expect(await request(ws, first.id)).toMatchObject({
      decision: 'approved',
      decidedBy: REVIEWER,
    });
    await waitForRun(t.http, ws.key, first.workflowRunId, 'COMPLETED');
    await waitForBadge(page, 2);

    // The next request is selected: reject it with a comment.
    await waitFor('the second request selected', () =>
      selectedId(page) === second.id ? true : undefined,
    );
    await detail.getByRole('button', { name: /^Reject/ }).click();
    const reject = page.getByRole('dialog', { name: 'Reject this request' });
    await reject.getByLabel('Reason (optional)').fill('The tone is off; shorter please.');
    await reject.getByText('32 / 2000 characters').waitFor();
    await reject.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').getByText('Rejected: review-2.').waitFor();
    expect(await request(ws, second.id)).toMatchObject({
      decision: 'rejected',
      decidedBy: REVIEWER,
      comment: 'The tone is off; shorter please.',
    });
    await waitForBadge(page, 1);

    // Edit, check the diff, approve with the edits.
    await waitFor('the third request selected', () =>
      selectedId(page) === third.id ? true : undefined,
    );
    await detail.getByRole('button', { name: /^Edit and approve/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the content, then approve' });
    const editor = edit.getByLabel('Content (a JSON object)');
    expect(await editor.inputValue()).toBe(
      '{\n  "body": "Body of draft 3.",\n  "title": "Draft 3"\n}',
    );
    await expectDisabled(edit.getByRole('button', { name: 'Approve with edits' }));
    await editor.fill('{\n  "body": "Body of draft 3.",\n  "title": "Final title"\n}');
    const diff = edit.getByRole('region', { name: /^Changes/ });
    expect((await diff.textContent())?.split('\n')).toEqual([
      ' {',
      '   "body": "Body of draft 3.",',
      '-  "title": "Draft 3"',
      '+  "title": "Final title"',
      ' }',
      '',
    ]);
    await edit.getByText('1 line removed (-), 1 line added (+).').waitFor();
    await edit.getByRole('button', { name: 'Approve with edits' }).click();
    await page.getByRole('status').getByText('Approved with edits: review-3.').waitFor();
    expect(await request(ws, third.id)).toMatchObject({
      decision: 'edited',
      decidedBy: REVIEWER,
      editedContent: { title: 'Final title', body: 'Body of draft 3.' },
    });
    const done = await waitForRun(t.http, ws.key, third.workflowRunId, 'COMPLETED');
    expect(done.output?.publish).toEqual({
      published: { title: 'Final title', body: 'Body of draft 3.' },
    });

    await page.getByText('No approvals waiting').waitFor();
    await waitForBadge(page, 0);

    // The decided tab: decision, decider and time of each.
    await page
      .getByRole('navigation', { name: 'Approval requests' })
      .getByRole('link', { name: 'Decided' })
      .click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'decided');
    const rows = page.locator('table.approval-decided tbody tr');
    await waitFor('the two most recent decided rows', async () =>
      (await rows.count()) === 2 ? true : undefined,
    );
    await page.getByRole('button', { name: 'Show older decisions' }).click();
    await waitFor('three decided rows', async () =>
      (await rows.count()) === 3 ? true : undefined,
    );
    expect(await page.getByRole('button', { name: 'Show older decisions' }).count()).toBe(0);
    for (const [step, decision] of [
      ['review-1', 'approved'],
      ['review-2', 'rejected'],
      ['review-3', 'edited'],
    ]) {
      const decided = rows.filter({ hasText: step });
      await decided.getByText(decision, { exact: true }).waitFor();
      await decided.getByText(REVIEWER).waitFor();
      expect(await decided.locator('time').getAttribute('title')).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
      );
    }
    await rows
      .filter({ hasText: 'review-2' })
      .getByText('The tone is off; shorter please.')
      .waitFor();
    // A reload keeps the tab.
    await page.reload();
    await page.getByRole('heading', { name: 'Decided requests' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows who decided a request meanwhile (409) and keeps what the reviewer typed', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first, second, third] = await pausedRequests(ws, drafts(3, 'conflict'));
    const { page, context, problems } = await openInbox(ws);
    const detail = page.locator('#approval-detail');
    await detail.getByRole('heading', { name: 'conflict-1' }).waitFor();
    await waitForBadge(page, 3);

    // Approve, while someone else rejects it through the API.
    await detail.getByRole('button', { name: /^Approve/ }).click();
    const approve = page.getByRole('dialog', { name: 'Approve this request?' });
    await approve.waitFor();
    const elsewhere = await t.http
      .post(`/v1/approval-requests/${first.id}/decide`)
      .set('x-api-key', ws.key)
      .send({ decision: 'rejected', decidedBy: 'someone else', comment: 'no' });
    expect(elsewhere.status).toBe(200);
    await approve.getByRole('button', { name: 'Approve' }).click();
    await approve
      .getByRole('alert')
      .getByText('Already decided: rejected by someone else')
      .waitFor();
    await approve.getByRole('button', { name: 'Move on' }).click();
    await waitFor('the second request selected', () =>
      selectedId(page) === second.id ? true : undefined,
    );
    await waitForBadge(page, 2);

    // Edit, while someone else approves: the edits stay on screen.
    await detail.getByRole('button', { name: /^Edit and approve/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the content, then approve' });
    const typed = '{\n  "title": "My careful rewrite",\n  "body": "Hours of work."\n}';
    await edit.getByLabel('Content (a JSON object)').fill(typed);
    await t.http
      .post(`/v1/approval-requests/${second.id}/decide`)
      .set('x-api-key', ws.key)
      .send({ decision: 'approved', decidedBy: 'someone else' })
      .expect(200);
    await edit.getByRole('button', { name: 'Approve with edits' }).click();
    await edit.getByRole('alert').getByText('Already decided: approved by someone else').waitFor();
    await edit.getByText('What you typed is kept below').waitFor();
    expect(await edit.getByLabel('Content (a JSON object)').inputValue()).toBe(typed);
    expect(await request(ws, second.id)).toMatchObject({
      decidedBy: 'someone else',
      editedContent: null,
    });
    await edit.getByRole('button', { name: 'Move on' }).click();
    await waitFor('the third request selected', () =>
      selectedId(page) === third.id ? true : undefined,
    );

    // Reject with a comment, while someone else rejects: the comment stays too.
    await detail.getByRole('button', { name: /^Reject/ }).click();
    const reject = page.getByRole('dialog', { name: 'Reject this request' });
    await reject.getByLabel('Reason (optional)').fill('A reason worth keeping');
    await t.http
      .post(`/v1/approval-requests/${third.id}/decide`)
      .set('x-api-key', ws.key)
      .send({ decision: 'approved', decidedBy: 'someone else' })
      .expect(200);
    await reject.getByRole('button', { name: 'Reject' }).click();
    await reject
      .getByRole('alert')
      .getByText('Already decided: approved by someone else')
      .waitFor();
    expect(await reject.getByLabel('Reason (optional)').inputValue()).toBe(
      'A reason worth keeping',
    );
    await reject.getByRole('button', { name: 'Move on' }).click();
    await page.getByText('No approvals waiting').waitFor();
    await waitForBadge(page, 0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a request decided elsewhere, opened by deep link, with its decider and no actions', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first] = await pausedRequests(ws, drafts(1, 'linked'));
    await t.http
      .post(`/v1/approval-requests/${first.id}/decide`)
      .set('x-api-key', ws.key)
      .send({ decision: 'approved', decidedBy: 'someone else' })
      .expect(200);
    const { page, context, problems } = await openInbox(ws);
    await page.goto(`/console/approvals?id=${first.id}`);
    const detail = page.locator('#approval-detail');
    await detail.getByText('Already decided: approved by someone else').waitFor();
    expect(await detail.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await page.getByText('No approvals waiting').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('with approvals:read but not approvals:decide, shows the queue and the request but no decision, by mouse or key', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first] = await pausedRequests(ws, drafts(1, 'read-only'));
    const reader = await createScopedKey(t.http, ws.key, ['approvals:read']);
    const { page, context, problems } = await openConsole(browser, t.baseUrl);
    await signIn(page, reader.key, REVIEWER, '/console/approvals');
    const detail = page.locator('#approval-detail');
    await detail.getByRole('heading', { name: 'read-only-1' }).waitFor();
    await waitForBadge(page, 1);
    await detail.getByText('Deciding needs the scope approvals:decide').waitFor();
    expect(await detail.getByRole('button', { name: /Approve|Reject|Edit/ }).count()).toBe(0);
    // The shortcuts open nothing either.
    for (const key of ['a', 'r', 'e']) await page.keyboard.press(key);
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
    expect(await page.locator('dialog[open]').count()).toBe(0);
    expect((await request(ws, first.id)).decision).toBeNull();
    const nav = page.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link').count()).toBe(1);
    await nav.getByRole('link', { name: /^Approvals/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a request that arrives while the page is open, within the refresh interval', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const { page, context, problems } = await openInbox(ws);
    await page.getByText('No approvals waiting').waitFor();
    const [arrived] = await pausedRequests(ws, drafts(1, 'arrived'));
    // The queue is read again every 10 s while the page is visible.
    await page.locator('.approval-item').getByText('arrived-1').waitFor({ timeout: 15_000 });
    await waitFor('the new request selected', () =>
      selectedId(page) === arrived.id ? true : undefined,
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps approving blocked while the edited JSON is invalid', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first] = await pausedRequests(ws, drafts(1, 'invalid'));
    const { page, context, problems } = await openInbox(ws);
    await page
      .locator('#approval-detail')
      .getByRole('button', { name: /^Edit and approve/ })
      .click();
    const edit = page.getByRole('dialog', { name: 'Edit the content, then approve' });
    const editor = edit.getByLabel('Content (a JSON object)');
    const confirm = edit.getByRole('button', { name: 'Approve with edits' });

    await editor.fill('{"title": "Draft 1",');
    await edit.getByText(/^This is not valid JSON: /).waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    await expectDisabled(confirm);
    await edit.getByText('The changes show once the content is a valid JSON object.').waitFor();
    await editor.press('Control+Enter');

    await editor.fill('["a list"]');
    await edit.getByText('The content must be a JSON object ({ … }), not an array.').waitFor();
    await expectDisabled(confirm);
    await editor.fill('"just text"');
    await edit.getByText('The content must be a JSON object ({ … }), not a string.').waitFor();
    await expectDisabled(confirm);
    expect((await request(ws, first.id)).decision).toBeNull();

    await editor.fill('{"title": "Fixed"}');
    await edit.getByText('Valid JSON object.').waitFor();
    expect(await confirm.isEnabled()).toBe(true);
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await edit.waitFor({ state: 'hidden' });
    expect((await request(ws, first.id)).decision).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('clears a queue of three with the keyboard alone: a, r with a comment, e with an edit', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first, second, third] = await pausedRequests(ws, drafts(3, 'keys'));
    const { page, context, problems } = await openInbox(ws);
    await waitFor('the first request selected', () =>
      selectedId(page) === first.id ? true : undefined,
    );

    // j / k and the arrows move through the queue; the selection is a deep link.
    await page.keyboard.press('j');
    await waitFor('j to select the second', () =>
      selectedId(page) === second.id ? true : undefined,
    );
    await page.keyboard.press('ArrowDown');
    await waitFor('ArrowDown to select the third', () =>
      selectedId(page) === third.id ? true : undefined,
    );
    await page.keyboard.press('j');
    expect(selectedId(page)).toBe(third.id);
    await page.reload();
    await page.locator('#approval-detail').getByRole('heading', { name: 'keys-3' }).waitFor();
    await page.keyboard.press('k');
    await waitFor('k to select the second', () =>
      selectedId(page) === second.id ? true : undefined,
    );
    await page.keyboard.press('ArrowUp');
    await waitFor('ArrowUp to select the first', () =>
      selectedId(page) === first.id ? true : undefined,
    );

    // a, Enter: approved.
    await page.keyboard.press('a');
    await page.getByRole('dialog', { name: 'Approve this request?' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Approved: keys-1.').waitFor();
    await waitFor('the second request selected', () =>
      selectedId(page) === second.id ? true : undefined,
    );

    // r, a comment (its letters are typing, not shortcuts), Ctrl+Enter: rejected.
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: 'Reject this request' }).waitFor();
    await page.keyboard.type('Needs a real example.');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').getByText('Rejected: keys-2.').waitFor();
    await waitFor('the third request selected', () =>
      selectedId(page) === third.id ? true : undefined,
    );

    // e, replace the content, Ctrl+Enter: approved with the edits.
    await page.keyboard.press('e');
    await page.getByRole('dialog', { name: 'Edit the content, then approve' }).waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('{"title": "Typed", "body": "by keyboard"}');
    await page
      .getByRole('region', { name: /^Changes/ })
      .getByText('+  "title": "Typed",')
      .waitFor();
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').getByText('Approved with edits: keys-3.').waitFor();
    await page.getByText('No approvals waiting').waitFor();

    expect(await request(ws, first.id)).toMatchObject({
      decision: 'approved',
      decidedBy: REVIEWER,
    });
    expect(await request(ws, second.id)).toMatchObject({
      decision: 'rejected',
      decidedBy: REVIEWER,
      comment: 'Needs a real example.',
    });
    expect(await request(ws, third.id)).toMatchObject({
      decision: 'edited',
      decidedBy: REVIEWER,
      editedContent: { title: 'Typed', body: 'by keyboard' },
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('does nothing on shortcut keys once they are switched off, and remembers that', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first] = await pausedRequests(ws, drafts(2, 'off'));
    const { page, context, problems } = await openInbox(ws);
    await waitFor('the first request selected', () =>
      selectedId(page) === first.id ? true : undefined,
    );
    const toggle = page.getByRole('checkbox', { name: 'Use keyboard shortcuts' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await page.getByText('Shortcuts are switched off; the buttons still work.').waitFor();

    const tryKeys = async () => {
      for (const key of ['j', 'ArrowDown', 'a', 'r', 'e']) {
        await page.keyboard.press(key);
        // A press on the checkbox is not typing: only the switch stops it.
        expect(await page.locator('dialog[open]').count()).toBe(0);
      }
      expect(selectedId(page)).toBe(first.id);
    };
    await tryKeys();
    // After a reload (the focus on the page itself) the switch is still off.
    await page.reload();
    await page.locator('#approval-detail').getByRole('heading', { name: 'off-1' }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Use keyboard shortcuts' }).isChecked()).toBe(
      false,
    );
    await tryKeys();
    expect((await request(ws, first.id)).decision).toBeNull();
    // Only the preference is stored, never the key.
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage })');
    expect(stored).toBe('{"console.approvals.shortcuts":"off"}');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('renders hostile step names, prompts, content and comments as text', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const [first] = await pausedRequests(ws, [
      {
        step: HOSTILE_SCRIPT,
        prompt: `Approve ${HOSTILE_IMG}?`,
        content: { html: HOSTILE_SVG, [HOSTILE_IMG]: 'key' },
      },
    ]);
    const { page, context, problems } = await openInbox(ws);
    const detail = page.locator('#approval-detail');
    await detail.getByRole('heading', { name: HOSTILE_SCRIPT }).waitFor();
    await queueItems(page).getByText(`Approve ${HOSTILE_IMG}?`).waitFor();
    await detail.getByText(`Approve ${HOSTILE_IMG}?`).waitFor();
    await detail.getByText(JSON.stringify(HOSTILE_SVG)).waitFor();

    await detail.getByRole('button', { name: /^Edit and approve/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the content, then approve' });
    await edit.getByText(HOSTILE_SCRIPT).waitFor();
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await detail.getByRole('button', { name: /^Reject/ }).click();
    const reject = page.getByRole('dialog', { name: 'Reject this request' });
    await reject.getByLabel('Reason (optional)').fill(HOSTILE_SVG);
    await reject.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('No approvals waiting').waitFor();
    expect((await request(ws, first.id)).comment).toBe(HOSTILE_SVG);

    await page.goto('/console/approvals?tab=decided');
    const row = page.locator('table.approval-decided tbody tr');
    await row.getByText(HOSTILE_SCRIPT).waitFor();
    await row.getByText(HOSTILE_SVG).waitFor();
    await row.getByText(`Approve ${HOSTILE_IMG}?`).waitFor();

    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator('svg[onload]').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  /** A paused run whose approval step has `policy`, and its request. */
  async function policyRequest(
    ws: WorkspaceWithKey,
    step: string,
    policy: Record<string, unknown>,
  ): Promise<ApprovalRequest> {
    const definitionId = await createDefinition(t.http, ws.key, [
      { type: 'approval', name: step, contentKey: 'draft', prompt: `Ship ${step}?`, ...policy },
      { type: 'task', name: 'publish', handler: 'noop' },
    ]);
    const runId = await startRun(t.http, ws.key, definitionId, { draft: { title: step } });
    return waitFor(`the approval request of run ${runId}`, async () => {
      const res = await t.http.get(`/v1/workflow-runs/${runId}/events`).set('x-api-key', ws.key);
      const requested = (
        res.body as Envelope<Array<{ eventType: string; payload: Record<string, unknown> }>>
      ).data.find((e) => e.eventType === 'APPROVAL_REQUESTED');
      return requested ? request(ws, requested.payload.approvalRequestId as string) : undefined;
    });
  }

  it('shows assignees, quorum progress, expiry and escalation, filters "for me" or by name, and keeps a partial approval in the queue', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    const quorum = await policyRequest(ws, 'review-quorum', {
      assignees: [REVIEWER, 'Bob Builder'],
      requiredApprovals: 2,
      timeoutMs: 3_600_000,
    });
    const escalated = await policyRequest(ws, 'review-escalated', {
      assignees: ['Ann Analyst'],
      timeoutMs: 200,
      escalateTo: { assignees: ['Boss'] },
    });
    await waitFor('the escalation', async () =>
      (await request(ws, escalated.id)).escalatedAt !== null ? true : undefined,
    );
    await pausedRequests(ws, drafts(1, 'plain'));
    const { page, context, problems } = await openInbox(ws);
    await page.getByRole('heading', { name: 'Waiting for a decision (3)' }).waitFor();

    // Each request shows who it is for, its quorum progress, its expiry and its escalation.
    const quorumItem = queueItems(page).filter({ hasText: 'review-quorum' });
    await quorumItem.getByText(`For ${REVIEWER}, Bob Builder`).waitFor();
    await quorumItem.getByText('0 of 2 approvals').waitFor();
    await quorumItem.getByText('Expires in 1 hour').waitFor();
    const escalatedItem = queueItems(page).filter({ hasText: 'review-escalated' });
    await escalatedItem.getByText('For Boss').waitFor();
    await escalatedItem.getByText('Escalated', { exact: true }).waitFor();
    const plainItem = queueItems(page).filter({ hasText: 'plain-1' });
    expect(await plainItem.locator('.approval-policy').count()).toBe(0);

    // For me: the session's reviewer name, in the URL.
    await page.getByRole('button', { name: 'For me' }).click();
    await page.waitForURL((url) => url.searchParams.get('assignee') === REVIEWER);
    await page.getByRole('heading', { name: 'Waiting for a decision (1)' }).waitFor();
    expect(await queueItems(page).locator('.approval-step').allTextContents()).toEqual([
      'review-quorum',
    ]);
    expect(await page.getByRole('button', { name: 'For me' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    const detail = page.locator('#approval-detail');
    await detail.getByRole('heading', { name: 'review-quorum' }).waitFor();
    await detail.getByText('then it is rejected').waitFor();
    // Several approvals needed: no edit.
    expect(await detail.getByRole('button', { name: /^Edit and approve/ }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // A first approval: recorded, the request stays in the queue with its progress.
    await detail.getByRole('button', { name: /^Approve/ }).click();
    const approve = page.getByRole('dialog', { name: 'Approve this request?' });
    await approve.getByText(/Your approval counts toward the 2 needed/).waitFor();
    await approve.getByRole('button', { name: 'Approve' }).click();
    await page
      .getByRole('status')
      .getByText('Approval recorded: 1 of 2 approvals for review-quorum; it waits for more.')
      .waitFor();
    await quorumItem.getByText('1 of 2 approvals').waitFor();
    await quorumItem.getByText(`approved by ${REVIEWER}`).waitFor();
    await detail.getByText('You approved this request').waitFor();
    await expectDisabled(detail.getByRole('button', { name: /^Approve/ }));
    expect(selectedId(page)).toBe(quorum.id);
    expect(await request(ws, quorum.id)).toMatchObject({
      decision: null,
      approvals: [{ decidedBy: REVIEWER, decision: 'approved', comment: null }],
    });
    // The keyboard cannot approve it twice either.
    await page.keyboard.press('a');
    await page
      .getByRole('status')
      .getByText('You have approved this request already; it waits for another reviewer.')
      .waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'approvals-quorum');

    // The second approval, elsewhere, completes it.
    await t.http
      .post(`/v1/approval-requests/${quorum.id}/decide`)
      .set('x-api-key', ws.key)
      .send({ decision: 'approved', decidedBy: 'Bob Builder' })
      .expect(200);
    await waitForRun(t.http, ws.key, quorum.workflowRunId, 'COMPLETED');

    // A name typed in: the escalated request is in Boss's queue, with where it came from.
    await page.getByLabel('Assigned to').fill('Boss');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('assignee') === 'Boss');
    await detail.getByRole('heading', { name: 'review-escalated' }).waitFor();
    await detail.getByText('from Ann Analyst').waitFor();
    expect(await page.getByRole('button', { name: 'For me' }).getAttribute('aria-pressed')).toBe(
      'false',
    );

    // Everyone again: the decided request is gone, the other two remain.
    await page.getByRole('button', { name: 'Everyone' }).click();
    await page.waitForURL((url) => !url.searchParams.has('assignee'));
    await page.getByRole('heading', { name: 'Waiting for a decision (2)' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no serious accessibility violation at 1280 and 390 px, with a request selected and in the edit dialog', async () => {
    const ws = await createWorkspaceWithKey(t.http);
    await pausedRequests(ws, [
      {
        step: 'review-newsletter',
        prompt: 'Send this newsletter to 12,400 subscribers?',
        content: {
          subject: 'November product update',
          preheader: 'Faster runs, a console, and live events',
          body: 'This month we shipped a web console with an approvals inbox and live run events.',
          audience: { segment: 'all-subscribers', locale: 'en' },
        },
      },
      {
        step: 'review-support-reply',
        prompt: 'Send this reply to the customer?',
        content: {
          ticket: 'T-4821',
          reply: 'Thanks for the report: the retry button now appears on failed runs only.',
        },
      },
      {
        step: 'review-release-notes',
        prompt: 'Publish the release notes for 2.4?',
        content: { version: '2.4.0', highlights: ['Approvals inbox', 'Cost charts'] },
      },
    ]);
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, context, problems } = await openInbox(ws, viewport);
      const detail = page.locator('#approval-detail');
      await detail.getByRole('heading', { name: 'review-newsletter' }).waitFor();
      await page.getByRole('heading', { name: 'Waiting for a decision (3)' }).waitFor();
      await waitForBadge(page, 3);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(
        false,
      );
      if (viewport === DESKTOP) await screenshot(page, 'approvals');

      await detail.getByRole('button', { name: /^Edit and approve/ }).click();
      const edit = page.getByRole('dialog', { name: 'Edit the content, then approve' });
      const editor = edit.getByLabel('Content (a JSON object)');
      const text = await editor.inputValue();
      await editor.fill(
        text.replace('"November product update"', '"November update: the console is here"'),
      );
      await edit.getByText('1 line removed (-), 1 line added (+).').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      if (viewport === DESKTOP) await screenshot(page, 'approvals-edit');
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await edit.waitFor({ state: 'hidden' });

      await page
        .getByRole('navigation', { name: 'Approval requests' })
        .getByRole('link', { name: 'Decided' })
        .click();
      await page.getByText('No decisions yet').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});

async function expectDisabled(locator: ReturnType<Page['locator']>): Promise<void> {
  expect(await locator.isDisabled()).toBe(true);
}
