import { workspaceLockKey } from './budgets.repository';

describe('workspaceLockKey', () => {
  it('takes the last 32 bits of the id as a signed integer, the same every time', () => {
    expect(workspaceLockKey('019a0000-0000-7000-8000-00000000002a')).toBe(42);
    expect(workspaceLockKey('019a0000-0000-7000-8000-0000ffffffff')).toBe(-1);
    expect(workspaceLockKey('019A0000-0000-7000-8000-00007FFFFFFF')).toBe(2147483647);
  });

  it('refuses what is not a uuid: it is written into the statement', () => {
    expect(() => workspaceLockKey('1); DROP TABLE x; --')).toThrow(RangeError);
    expect(() => workspaceLockKey('')).toThrow(RangeError);
  });
});
