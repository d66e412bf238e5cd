import { keyAction, keyNameProblem, orderKeys } from './key-rules';

describe('keyAction', () => {
  it("never offers to revoke the session's own key, nor a revoked one", () => {
    expect(keyAction({ id: 'me', revokedAt: null }, 'me')).toEqual({
      canRevoke: false,
      reason: 'this-session',
    });
    expect(keyAction({ id: 'old', revokedAt: '2026-01-01T00:00:00Z' }, 'me')).toEqual({
      canRevoke: false,
      reason: 'revoked',
    });
    expect(keyAction({ id: 'other', revokedAt: null }, 'me')).toEqual({ canRevoke: true });
  });
});

describe('orderKeys', () => {
  it('puts the session key first, then active keys newest first, then revoked ones', () => {
    const keys = [
      { id: 'revoked', revokedAt: '2026-03-01T00:00:00Z', createdAt: '2026-03-01T00:00:00Z' },
      { id: 'older', revokedAt: null, createdAt: '2026-01-01T00:00:00Z' },
      { id: 'me', revokedAt: null, createdAt: '2026-01-02T00:00:00Z' },
      { id: 'newer', revokedAt: null, createdAt: '2026-02-01T00:00:00Z' },
    ];
    expect(orderKeys(keys, 'me').map((k) => k.id)).toEqual(['me', 'newer', 'older', 'revoked']);
  });
});

describe('keyNameProblem', () => {
  it('wants 1-100 characters after trimming', () => {
    expect(keyNameProblem('  ')).toBe('Enter a name for the key.');
    expect(keyNameProblem('x'.repeat(101))).toBe('The name can have at most 100 characters.');
    expect(keyNameProblem(' ci ')).toBeUndefined();
  });
});
