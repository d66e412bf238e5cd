import { toleratedCount } from './map.step';

describe('toleratedCount', () => {
  it('tolerates nothing by default', () => {
    expect(toleratedCount(undefined, 40)).toBe(0);
  });

  it('takes a count as given', () => {
    expect(toleratedCount(3, 40)).toBe(3);
  });

  it('takes a percentage of the items, rounded down', () => {
    expect(toleratedCount('10%', 40)).toBe(4);
    expect(toleratedCount('10%', 19)).toBe(1);
    expect(toleratedCount('12.5%', 8)).toBe(1);
    expect(toleratedCount('100%', 7)).toBe(7);
    expect(toleratedCount('0%', 7)).toBe(0);
  });
});
