import { isUuid, timeOrderedUuid } from './ids';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millisOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('timeOrderedUuid', () => {
  it('makes a version 7 UUID with the RFC variant that isUuid accepts', () => {
    for (let i = 0; i < 100; i++) {
      const id = timeOrderedUuid();
      expect(id).toMatch(V7);
      expect(isUuid(id)).toBe(true);
    }
  });

  it('begins with the given Unix time in milliseconds, 48 bits wide', () => {
    expect(millisOf(timeOrderedUuid(0))).toBe(0);
    expect(millisOf(timeOrderedUuid(1_763_900_000_123))).toBe(1_763_900_000_123);
    expect(timeOrderedUuid(0xffffffffffff).slice(0, 13)).toBe('ffffffff-ffff');
    const before = Date.now();
    const t = millisOf(timeOrderedUuid());
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });

  it('sorts ids of later milliseconds after earlier ones, and keeps ids of one millisecond apart', () => {
    const ids = [5, 1, 3, 2, 4].map((ms) => timeOrderedUuid(1_700_000_000_000 + ms));
    expect([...ids].sort().map(millisOf)).toEqual(
      [1, 2, 3, 4, 5].map((ms) => 1_700_000_000_000 + ms),
    );
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(42)));
    expect(same.size).toBe(1000);
  });
});
