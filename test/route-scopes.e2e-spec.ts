import { Controller, Get, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Response as TestResponse } from 'supertest';
import { NoScope, RequiresScope } from '../src/common/auth';
import { declaredRoutes, takesKey, type DeclaredRoute } from '../src/common/route-table';
import { SCOPES, type Scope } from '../src/common/scopes';
import { createTestApp, type TestApp } from './support/app';
import { createScopedKey, createWorkspaceWithKey } from './support/factories';

/**
 * README "Scopes": every route the running application registers is held to the scope it declares.
 * The routes come from the application itself (its Express router, and the controllers' metadata the
 * guard reads), never from a list kept here, so a route added without a declaration fails the first
 * test, named.
 */

/** Express routes that are no Nest route: public by construction, mounted before the API's guards. */
const OUTSIDE_NEST: Array<{ what: string; matches: (path: string) => boolean }> = [
  { what: 'the Prometheus scrape', matches: (p) => p === '/metrics' },
  { what: 'the console pages', matches: (p) => p.startsWith('/^\\/console') },
  { what: 'the API documentation', matches: (p) => p === '/docs' || p.startsWith('/docs/') },
  { what: 'the OpenAPI document', matches: (p) => p === '/openapi.json' || p === '/docs-yaml' },
];

interface ExpressRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
}

function expressRoutes(t: TestApp): ExpressRoute[] {
  const express = t.app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
  return express.router.stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map((m) => ({
          method: m.toUpperCase(),
          path: String(layer.route!.path),
        }))
      : [],
  );
}

/** The README's route -> scope table: `scope`, or `none` for a route any caller may use. */
function readmeTable(): Map<string, Scope | 'none'> {
  const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n### Scopes\n'));
  const table = new Map<string, Scope | 'none'>();
  for (const line of section.split('\n').slice(2)) {
    if (/^##+ /.test(line)) break;
    const row = /^\| `(GET|POST|PUT|PATCH|DELETE) (\/\S*)` \| (.+?) \|$/.exec(line);
    if (!row) continue;
    const scope = /^`([a-z]+:[a-z]+)`$/.exec(row[3]);
    table.set(`${row[1]} ${row[2]}`, scope ? (scope[1] as Scope) : 'none');
  }
  return table;
}

/** What the route answers a request with `key` (ids made up: the scope check comes before any). */
function call(t: TestApp, route: DeclaredRoute, key: string): Promise<TestResponse> {
  const url = route.path.replace(/:[A-Za-z]+/g, () => randomUUID());
  const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const req = t.http[method](url).set('x-api-key', key).set('Origin', t.baseUrl);
  return ['post', 'put', 'patch'].includes(method) ? req.send({}) : req;
}

const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('route scopes (README "Scopes")', () => {
  let t: TestApp;
  let routes: DeclaredRoute[];
  /** A key holding exactly this scope. */
  const only = new Map<Scope, string>();
  /** A key holding every scope but this one. */
  const allBut = new Map<Scope, string>();

  beforeAll(async () => {
    t = await createTestApp();
    routes = declaredRoutes(t.app);
    const ws = await createWorkspaceWithKey(t.http);
    for (const scope of SCOPES) {
      only.set(scope, (await createScopedKey(t.http, ws.key, [scope])).key);
      allBut.set(
        scope,
        (
          await createScopedKey(
            t.http,
            ws.key,
            SCOPES.filter((s) => s !== scope),
          )
        ).key,
      );
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('finds every route the application serves, each a declared Nest route or a known public one', () => {
    const declared = new Set(routes.map(name));
    const unknown = expressRoutes(t).filter(
      (r) => !declared.has(name(r)) && !OUTSIDE_NEST.some((o) => o.matches(r.path)),
    );
    expect(unknown).toEqual([]);
    // The enumeration sees the whole API (a broken one would pass every test below vacuously).
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(declared).toContain('POST /v1/workflow-runs');
  });

  it('has a scope declaration (@RequiresScope or @NoScope) on every route that takes an API key', () => {
    const undeclared = routes
      .filter((r) => takesKey(r) && r.scope === undefined)
      .map((r) => `${name(r)} (${r.handler})`);
    expect(undeclared).toEqual([]);
  });

  it("matches the README's route table, route for route", () => {
    const declared = new Map(
      routes.map((r) => [name(r), takesKey(r) ? (r.scope ?? 'UNDECLARED') : 'none']),
    );
    expect(Object.fromEntries(readmeTable())).toEqual(Object.fromEntries(declared));
  });

  it('lets a key holding exactly the scope through every scoped route, and refuses a key holding every other scope with 403 naming it', async () => {
    const scoped = routes.filter((r) => takesKey(r) && r.scope !== undefined && r.scope !== 'none');
    expect(scoped.length).toBeGreaterThan(0);
    const outcomes: string[] = [];
    for (const route of scoped) {
      const scope = route.scope as Scope;
      const allowed = await call(t, route, only.get(scope)!);
      const refused = await call(t, route, allBut.get(scope)!);
      outcomes.push(
        `${name(route)} [${scope}]: with it ${allowed.status === 403 ? 'REFUSED' : 'passes'}, ` +
          `without it ${
            refused.status === 403 &&
            JSON.stringify(refused.body) ===
              JSON.stringify({
                success: false,
                error: { code: 'FORBIDDEN', message: `API key lacks scope ${scope}` },
              })
              ? 'refused'
              : `ANSWERED ${refused.status} ${refused.text.slice(0, 120)}`
          }`,
      );
    }
    expect(outcomes.filter((o) => /REFUSED|ANSWERED/.test(o))).toEqual([]);
    // Every scope guards at least one route.
    expect([...new Set(scoped.map((r) => r.scope))].sort()).toEqual([...SCOPES].sort());
  });

  it('lets a key with one unrelated scope through every route that needs no scope', async () => {
    const open = routes.filter((r) => !takesKey(r) || r.scope === 'none');
    expect(open.map(name)).toEqual(
      expect.arrayContaining([
        'GET /v1/workspaces/current',
        'GET /v1/console/session',
        'GET /live',
      ]),
    );
    const refused: string[] = [];
    for (const route of open) {
      const res = await call(t, route, only.get('schedules:read')!);
      if (res.status === 403) refused.push(`${name(route)}: ${res.text}`);
    }
    expect(refused).toEqual([]);
    const current = await t.http
      .get('/v1/workspaces/current')
      .set('x-api-key', only.get('schedules:read')!);
    expect(current.status).toBe(200);
    // The routes outside Nest (metrics, console, documentation) never look at a key.
    for (const url of ['/console/runs', '/openapi.json', '/docs']) {
      const res = await request(t.baseUrl).get(url).set('x-api-key', only.get('costs:read')!);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
    }
  });

  describe('a route of an extension', () => {
    @Controller('v1/extension-things')
    class ThingsController {
      @Get('declared')
      @RequiresScope('runs:read')
      declared() {
        return { ok: true };
      }

      @Get('open')
      @NoScope()
      open() {
        return { ok: true };
      }

      @Get('undeclared')
      undeclared() {
        return { ok: true };
      }
    }

    @Module({ controllers: [ThingsController] })
    class ThingsModule {}

    let ext: TestApp;
    let full: string;
    let runsReader: string;
    let allButOne: string;

    beforeAll(async () => {
      ext = await createTestApp({}, { databaseUrl: t.databaseUrl, imports: [ThingsModule] });
      const ws = await createWorkspaceWithKey(ext.http);
      full = ws.key;
      runsReader = (await createScopedKey(ext.http, ws.key, ['runs:read'])).key;
      allButOne = (
        await createScopedKey(
          ext.http,
          ws.key,
          SCOPES.filter((s) => s !== 'schedules:write'),
        )
      ).key;
    });
    afterAll(async () => {
      await ext?.close();
    });

    // Not in the OpenAPI document of the service: read without the document's check.
    const get = (url: string, key: string) => request(ext.baseUrl).get(url).set('x-api-key', key);

    it('is found by the enumeration, and one without a declaration is reported', () => {
      const mine = declaredRoutes(ext.app).filter((r) => r.path.startsWith('/v1/extension-'));
      expect(mine.map((r) => [name(r), r.scope])).toEqual([
        ['GET /v1/extension-things/declared', 'runs:read'],
        ['GET /v1/extension-things/open', 'none'],
        ['GET /v1/extension-things/undeclared', undefined],
      ]);
      expect(mine.filter((r) => takesKey(r) && r.scope === undefined).map(name)).toEqual([
        'GET /v1/extension-things/undeclared',
      ]);
    });

    it('is held to the scope it declares, like the service routes', async () => {
      expect((await get('/v1/extension-things/declared', runsReader)).status).toBe(200);
      const refused = await get('/v1/extension-things/declared', allBut.get('runs:read')!);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toBe('API key lacks scope runs:read');
      expect((await get('/v1/extension-things/open', runsReader)).status).toBe(200);
    });

    it('without a declaration, is open only to keys holding every scope', async () => {
      expect((await get('/v1/extension-things/undeclared', full)).status).toBe(200);
      const refused = await get('/v1/extension-things/undeclared', allButOne);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        success: false,
        error: { code: 'FORBIDDEN', message: 'API key lacks scope schedules:write' },
      });
      const narrow = await get('/v1/extension-things/undeclared', runsReader);
      expect(narrow.body.error.message).toBe('API key lacks scope definitions:read');
    });
  });
});
