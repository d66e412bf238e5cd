import type { KeyAuth } from '../common/auth';

/** What the cache keeps of an active key: what never changes while the key lives. */
export type CachedKey = Pick<KeyAuth, 'keyId' | 'workspaceId' | 'scopes'>;

/**
 * Active API keys this process has read, by hash, at most `capacity` of them (the oldest entry makes
 * room). A key's workspace and scopes never change; only its revocation does, which the cache cannot
 * know: an entry is only ever used on a route whose statement checks the key is still active (README
 * "API key cache"), and is dropped once one finds it revoked. Capacity 0 turns the cache off.
 */
export class KeyCache {
  private readonly entries = new Map<string, CachedKey>();

  constructor(private readonly capacity: number) {}

  get(hash: string): CachedKey | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, key: CachedKey): void {
    if (this.capacity === 0) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, key);
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }
}
