import type { KeyAuth } from '../common/auth';

/** What the cache keeps of an active key: what never changes while the key lives. */
export type CachedKey = Pick<KeyAuth, 'keyId' | 'workspaceId' | 'scopes'>;

/**
 * Active API keys this process has read, by hash, at most `capacity` of them (the least recently used
 * entry makes room, so the keys in use stay while more keys than that come and go). A key's workspace
 * and scopes never change; only its revocation does, which the cache cannot know: an entry is only
 * ever used on a route whose statement checks the key is still active (README "API key cache"), and
 * is dropped once one finds it revoked. Capacity 0 turns the cache off.
 */
export class KeyCache {
  private readonly entries = new Map<string, CachedKey>();

  constructor(private readonly capacity: number) {}

  get(hash: string): CachedKey | undefined {
    const key = this.entries.get(hash);
    if (key !== undefined) {
      // A Map keeps insertion order: moved to the end, the entry is the last to make room.
      this.entries.delete(hash);
      this.entries.set(hash, key);
    }
    return key;
  }

  set(hash: string, key: CachedKey): void {
    if (this.capacity === 0) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.capacity) {
      const leastRecent = this.entries.keys().next();
      if (!leastRecent.done) this.entries.delete(leastRecent.value);
    }
    this.entries.set(hash, key);
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }
}
