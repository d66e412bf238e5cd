import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_DIR } from '../src/console/console-static';
import { createTestApp, type TestApp } from './support/app';

describe('the console is served by the service at /console', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers its page without authentication, with a strict content security policy', async () => {
    const res = await t.http.get('/console');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<div id="app"></div>');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('answers the same page for every deep link, so that a reload keeps the page', async () => {
    const root = await t.http.get('/console');
    for (const path of [
      '/console/',
      '/console/runs?status=FAILED',
      '/console/runs/abc',
      '/console/approvals',
    ]) {
      const res = await t.http.get(path);
      expect(res.status).toBe(200);
      expect(res.text).toBe(root.text);
    }
  });

  it('lets a browser revalidate its page: one ETag for every deep link, 304 while it matches', async () => {
    const page = await t.http.get('/console');
    const tag = String(page.headers.etag);
    expect(tag).toMatch(/^"[\w-]+"$/);
    const deep = await t.http.get('/console/runs/abc');
    expect(deep.headers.etag).toBe(tag);
    const unchanged = await t.http.get('/console/approvals').set('if-none-match', tag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    const stale = await t.http.get('/console').set('if-none-match', '"an-older-build"');
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(page.text);
  });

  it('serves the built assets with long caching, and 404 in the envelope for a missing one', async () => {
    const assets = readdirSync(join(CONSOLE_DIR, 'assets')).filter((name) => name.endsWith('.js'));
    expect(assets.length).toBeGreaterThan(0);
    const res = await t.http.get(`/console/assets/${assets[0]}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');

    const missing = await t.http.get('/console/assets/nothing-here.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'no such console file' },
    });
    const dotfile = await t.http.get('/console/assets/..%2f..%2fpackage.json');
    expect(dotfile.status).toBe(404);
  });

  it('leaves other methods to the API (404 envelope), so /console takes no writes', async () => {
    const res = await t.http.post('/console/runs').send({});
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
