/** What the API keys page may offer for a key (the service enforces the same rules itself). */
import { SCOPES, type Scope } from '../../scopes';

export interface KeyLike {
  id: string;
  revokedAt: string | null;
}

/** The signed-in key, as the session describes it. */
export interface SessionKey {
  keyId: string;
  scopes: readonly string[];
}

export type KeyAction =
  | { canRevoke: true }
  | { canRevoke: false; reason: 'this-session' | 'revoked' | 'no-keys-write' }
  | { canRevoke: false; reason: 'wider'; scope: Scope };

/**
 * A key can be revoked unless it already is, or it is the key this console session signed in with
 * (revoking it would end the session mid-action), or the session's key lacks keys:write or a scope of
 * that key (a key revokes only keys it could have created). The service refuses all of these too.
 */
export function keyAction(
  key: KeyLike & { scopes: readonly string[] },
  session: SessionKey,
): KeyAction {
  if (key.id === session.keyId) return { canRevoke: false, reason: 'this-session' };
  if (key.revokedAt !== null) return { canRevoke: false, reason: 'revoked' };
  if (!session.scopes.includes('keys:write')) return { canRevoke: false, reason: 'no-keys-write' };
  const scope = SCOPES.find((s) => key.scopes.includes(s) && !session.scopes.includes(s));
  if (scope !== undefined) return { canRevoke: false, reason: 'wider', scope };
  return { canRevoke: true };
}

/** The scopes a new key may be given from this session: those its own key holds, in canonical order. */
export function grantableScopes(sessionScopes: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => sessionScopes.includes(scope));
}

/** A choice of scopes as the API accepts it (at least one); undefined when fine. */
export function scopesProblem(chosen: readonly string[]): string | undefined {
  return chosen.length === 0 ? 'Choose at least one scope.' : undefined;
}

/** How the keys table shows a key's scopes: every scope in a word, otherwise the list. */
export function scopesSummary(
  scopes: readonly string[],
): { all: true } | { all: false; scopes: Scope[] } {
  const known = SCOPES.filter((scope) => scopes.includes(scope));
  return known.length === SCOPES.length ? { all: true } : { all: false, scopes: known };
}

/** Active keys first (the session's own on top), then revoked ones; newest first within each. */
export function orderKeys<K extends KeyLike & { createdAt: string }>(
  keys: K[],
  sessionKeyId: string,
): K[] {
  const rank = (k: K) => (k.id === sessionKeyId ? 0 : k.revokedAt === null ? 1 : 2);
  return [...keys].sort(
    (a, b) => rank(a) - rank(b) || Date.parse(b.createdAt) - Date.parse(a.createdAt),
  );
}

/** A key name as the API accepts it: 1-100 characters after trimming; undefined when fine. */
export function keyNameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed.length === 0) return 'Enter a name for the key.';
  if (trimmed.length > 100) return 'The name can have at most 100 characters.';
  return undefined;
}
