import { SCOPES as SERVICE_SCOPES } from '../../src/common/scopes';
import { can, holdsAll, homePath, missingScope, PAGES, SCOPE_LABELS, SCOPES } from './scopes';

it("knows every scope of the service, in the service's canonical order", () => {
  expect(SCOPES).toEqual(SERVICE_SCOPES);
  expect(Object.keys(SCOPE_LABELS).sort()).toEqual([...SERVICE_SCOPES].sort());
});

describe('console scopes', () => {
  it('tells whether the key holds a scope, or all of a list', () => {
    expect(can(['runs:read'], 'runs:read')).toBe(true);
    expect(can(['runs:read'], 'runs:write')).toBe(false);
    expect(holdsAll(['runs:read', 'keys:write'], ['runs:read'])).toBe(true);
    expect(holdsAll(['runs:read', 'keys:write'], [])).toBe(true);
    expect(holdsAll(['runs:read'], ['runs:read', 'costs:read'])).toBe(false);
  });

  it('opens on the first page the key can read', () => {
    expect(homePath([...SCOPES])).toBe('/console/runs');
    expect(homePath(['approvals:read', 'approvals:decide'])).toBe('/console/approvals');
    expect(homePath(['keys:read'])).toBe('/console/api-keys');
    // Nothing readable: the runs page, which says what the key lacks.
    expect(homePath(['runs:write'])).toBe('/console/runs');
  });

  it('reads every page with a scope of the service', () => {
    for (const page of PAGES) expect(SERVICE_SCOPES).toContain(page.scope);
  });

  it("names the scope of the service's 403, and nothing for any other error", () => {
    const forbidden = Object.assign(new Error('API key lacks scope runs:write'), { status: 403 });
    expect(missingScope(forbidden)).toBe('runs:write');
    const crossSite = Object.assign(
      new Error('cross-site request refused: Origin does not match this service'),
      { status: 403 },
    );
    expect(missingScope(crossSite)).toBeUndefined();
    expect(missingScope(Object.assign(new Error('API key lacks scope x'), { status: 409 }))).toBe(
      undefined,
    );
    expect(missingScope(new Error('API key lacks scope runs:read'))).toBeUndefined();
    expect(missingScope(undefined)).toBeUndefined();
    expect(missingScope('API key lacks scope runs:read')).toBeUndefined();
  });
});
