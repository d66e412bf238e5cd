import {
  firstMissingScope,
  isScope,
  lacksScopeMessage,
  scopeListProblem,
  SCOPES,
  sortScopes,
} from './scopes';

describe('scopes', () => {
  it('are the thirteen of design §11, each read before write', () => {
    expect(SCOPES).toHaveLength(13);
    expect(new Set(SCOPES).size).toBe(13);
    for (const scope of SCOPES) expect(scope).toMatch(/^[a-z]+:(read|write|decide)$/);
  });

  it('knows a scope only by its exact spelling', () => {
    expect(isScope('runs:read')).toBe(true);
    for (const value of [
      'Runs:Read',
      'runs:read ',
      'runs',
      'webhooks:manage',
      7,
      null,
      ['runs:read'],
    ]) {
      expect(isScope(value)).toBe(false);
    }
  });

  it('puts scopes in the canonical order, each once', () => {
    expect(sortScopes(['keys:write', 'definitions:read', 'keys:write', 'runs:read'])).toEqual([
      'definitions:read',
      'runs:read',
      'keys:write',
    ]);
    expect(sortScopes([...SCOPES].reverse())).toEqual([...SCOPES]);
  });

  it('names the first scope (canonical order) of a wish that a key lacks', () => {
    expect(firstMissingScope(['webhooks:write', 'definitions:write'], ['runs:read'])).toBe(
      'definitions:write',
    );
    expect(firstMissingScope(['runs:read'], ['runs:read', 'costs:read'])).toBeUndefined();
    expect(firstMissingScope([], [])).toBeUndefined();
    expect(lacksScopeMessage('runs:write')).toBe('API key lacks scope runs:write');
  });

  it.each<[string, unknown, string | undefined]>([
    ['one scope', ['runs:read'], undefined],
    ['every scope, in any order', [...SCOPES].reverse(), undefined],
    ['a string', 'runs:read', 'scopes must be an array of scopes'],
    ['null', null, 'scopes must be an array of scopes'],
    ['an object', { 0: 'runs:read' }, 'scopes must be an array of scopes'],
    ['an empty array', [], 'scopes must contain at least one scope'],
    [
      'an unknown scope',
      ['runs:read', 'runs:admin'],
      `scopes[1] must be one of ${SCOPES.join(', ')}`,
    ],
    ['a number', [1], `scopes[0] must be one of ${SCOPES.join(', ')}`],
    [
      'a duplicate',
      ['costs:read', 'costs:read'],
      'scopes must not contain duplicates (costs:read is given twice)',
    ],
  ])('checks a list of scopes: %s', (_case, value, problem) => {
    expect(scopeListProblem(value)).toBe(problem);
  });

  it('stops at the first problem of a long list', () => {
    const long: unknown[] = ['runs:read', 'nope', ...Array.from({ length: 100_000 }, (_, i) => i)];
    expect(scopeListProblem(long)).toMatch(/^scopes\[1\]/);
  });
});
