import type { StepDefinition } from '../steps/step-definition';
import { jsonBytes } from '../common/limits';
import { DefinitionCache } from './definition-cache';

/** Steps whose JSON is about `bytes` long (a task step with padding in its config). */
function stepsOf(bytes: number, name = 's'): StepDefinition[] {
  const base = jsonBytes([{ type: 'task', name, handler: 'noop', config: { pad: '' } }]);
  return [
    { type: 'task', name, handler: 'noop', config: { pad: 'x'.repeat(Math.max(0, bytes - base)) } },
  ];
}

describe('DefinitionCache', () => {
  it('returns what was stored and counts its JSON bytes', () => {
    const cache = new DefinitionCache(10_000);
    const steps = stepsOf(1000);
    cache.set('a', steps);
    expect(cache.get('a')).toBe(steps);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.bytes).toBe(jsonBytes(steps));
  });

  it.each([
    ['many small entries', 100, 50],
    ['a few large ones', 3000, 10],
    ['entries of the size of the whole cache', 10_000, 5],
  ])('never holds more than its byte budget: %s', (_label, size, count) => {
    const cache = new DefinitionCache(10_000);
    for (let i = 0; i < count; i++) {
      cache.set(`d${i}`, stepsOf(size, `s${i}`));
      expect(cache.bytes).toBeLessThanOrEqual(10_000);
    }
    // The newest entry is always kept.
    expect(cache.get(`d${count - 1}`)).toBeDefined();
  });

  it('evicts the least recently used entry first, a hit counting as a use', () => {
    const cache = new DefinitionCache(3_500);
    cache.set('a', stepsOf(1000));
    cache.set('b', stepsOf(1000));
    cache.set('c', stepsOf(1000));
    expect(cache.get('a')).toBeDefined();
    cache.set('d', stepsOf(1000));
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((id) => cache.get(id) !== undefined)).toEqual([true, true, true]);
  });

  it('evicts as many entries as a large newcomer needs', () => {
    const cache = new DefinitionCache(5_000);
    for (const id of ['a', 'b', 'c', 'd']) cache.set(id, stepsOf(1000));
    cache.set('big', stepsOf(4000));
    expect(cache.get('big')).toBeDefined();
    expect(cache.size).toBe(2);
    expect(cache.get('d')).toBeDefined();
  });

  it('does not keep an entry larger than the whole budget, nor evict others for it', () => {
    const cache = new DefinitionCache(2_000);
    cache.set('a', stepsOf(1000));
    cache.set('huge', stepsOf(5000));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
  });

  it('replacing an entry does not count it twice', () => {
    const cache = new DefinitionCache(10_000);
    cache.set('a', stepsOf(1000));
    cache.set('a', stepsOf(2000));
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(jsonBytes(stepsOf(2000)));
  });

  it('with a budget of 0 keeps nothing (caching off)', () => {
    const cache = new DefinitionCache(0);
    cache.set('a', stepsOf(100));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
