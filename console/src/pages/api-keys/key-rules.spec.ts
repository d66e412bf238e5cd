import { SCOPES } from '../../scopes';
import {
  grantableScopes,
  keyAction,
  keyNameProblem,
  orderKeys,
  scopesProblem,
  scopesSummary,
} from './key-rules';

describe('keyAction', () => {
  const all = { keyId: 'me', scopes: [...SCOPES] };

  it("never offers to revoke the session's own key, nor a revoked one", () => {
    expect(keyAction({ id: 'me', revokedAt: null, scopes: [] }, all)).toEqual({
      canRevoke: false,
      reason: 'this-session',
    });
    expect(keyAction({ id: 'old', revokedAt: '2026-01-01T00:00:00Z', scopes: [] }, all)).toEqual({
      canRevoke: false,
      reason: 'revoked',
    });
    expect(keyAction({ id: 'other', revokedAt: null, scopes: [...SCOPES] }, all)).toEqual({
      canRevoke: true,
    });
  });

  it('offers to revoke only with keys:write, and only keys whose scopes the session holds', () => {
    const manager = { keyId: 'me', scopes: ['runs:read', 'keys:write'] };
    expect(keyAction({ id: 'a', revokedAt: null, scopes: ['runs:read'] }, manager)).toEqual({
      canRevoke: true,
    });
    expect(
      keyAction({ id: 'b', revokedAt: null, scopes: ['schedules:write', 'runs:write'] }, manager),
    ).toEqual({ canRevoke: false, reason: 'wider', scope: 'runs:write' });
    const reader = { keyId: 'me', scopes: ['keys:read', 'runs:read'] };
    expect(keyAction({ id: 'c', revokedAt: null, scopes: ['runs:read'] }, reader)).toEqual({
      canRevoke: false,
      reason: 'no-keys-write',
    });
  });
});

describe('scopes of a new key', () => {
  it("offers the session's own scopes, in canonical order, and wants at least one", () => {
    expect(grantableScopes(['keys:write', 'runs:read', 'unknown'])).toEqual([
      'runs:read',
      'keys:write',
    ]);
    expect(grantableScopes([...SCOPES])).toEqual([...SCOPES]);
    expect(scopesProblem([])).toBe('Choose at least one scope.');
    expect(scopesProblem(['runs:read'])).toBeUndefined();
  });

  it('sums up a key with every scope in a word, and lists the others in canonical order', () => {
    expect(scopesSummary([...SCOPES].reverse())).toEqual({ all: true });
    expect(scopesSummary(['approvals:decide', 'runs:read'])).toEqual({
      all: false,
      scopes: ['runs:read', 'approvals:decide'],
    });
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
