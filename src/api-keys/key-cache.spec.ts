import { KeyCache } from './key-cache';

const key = (n: number) => ({ keyId: `id-${n}`, workspaceId: 'ws', scopes: [] });

describe('KeyCache', () => {
  it('keeps at most its capacity, the least recently used entry making room', () => {
    const cache = new KeyCache(2);
    cache.set('a', key(1));
    cache.set('b', key(2));
    cache.set('c', key(3));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(key(2));
    expect(cache.get('c')).toEqual(key(3));
  });

  it('counts a key set again as new, so it is not the next to go', () => {
    const cache = new KeyCache(2);
    cache.set('a', key(1));
    cache.set('b', key(2));
    cache.set('a', key(1));
    cache.set('c', key(3));
    expect(cache.get('a')).toEqual(key(1));
    expect(cache.get('b')).toBeUndefined();
  });

  it('keeps a key in use while others come and go', () => {
    const cache = new KeyCache(2);
    cache.set('a', key(1));
    cache.set('b', key(2));
    expect(cache.get('a')).toEqual(key(1));
    cache.set('c', key(3));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(key(1));
    cache.set('d', key(4));
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toEqual(key(1));
    expect(cache.get('d')).toEqual(key(4));
  });

  it('drops a key on delete, and keeps nothing at capacity 0', () => {
    const cache = new KeyCache(1);
    cache.set('a', key(1));
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    const off = new KeyCache(0);
    off.set('a', key(1));
    expect(off.get('a')).toBeUndefined();
  });
});
