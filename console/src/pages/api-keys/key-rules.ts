/** What the API keys page may offer for a key (the service enforces the same rules itself). */

export interface KeyLike {
  id: string;
  revokedAt: string | null;
}

export type KeyAction =
  { canRevoke: true } | { canRevoke: false; reason: 'this-session' | 'revoked' };

/**
 * A key can be revoked unless it already is, or it is the key this console session signed in with
 * (revoking it would end the session mid-action; the service refuses that too).
 */
export function keyAction(key: KeyLike, sessionKeyId: string): KeyAction {
  if (key.id === sessionKeyId) return { canRevoke: false, reason: 'this-session' };
  if (key.revokedAt !== null) return { canRevoke: false, reason: 'revoked' };
  return { canRevoke: true };
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
