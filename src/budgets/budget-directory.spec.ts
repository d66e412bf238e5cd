import { BudgetedWorkspaces } from './budget-directory';

describe('BudgetedWorkspaces', () => {
  it('knows nothing before its first load: every workspace may have a budget', () => {
    const set = new BudgetedWorkspaces();
    expect(set.mayHaveBudget('a')).toBe(true);
    set.notify('clear:a');
    expect(set.mayHaveBudget('a')).toBe(true);
  });

  it('answers from the load, then follows the notifications in order', () => {
    const set = new BudgetedWorkspaces();
    set.finishLoad(set.beginLoad(), ['a']);
    expect(set.mayHaveBudget('a')).toBe(true);
    expect(set.mayHaveBudget('b')).toBe(false);
    set.notify('set:b');
    set.notify('clear:a');
    expect(set.mayHaveBudget('a')).toBe(false);
    expect(set.mayHaveBudget('b')).toBe(true);
    set.notify('clear:b');
    set.notify('set:b');
    expect(set.mayHaveBudget('b')).toBe(true);
  });

  it('applies the notifications that arrive during a load after it, newest last', () => {
    const set = new BudgetedWorkspaces();
    const token = set.beginLoad();
    // Committed after the load's snapshot (it still reads "a" without a budget, "b" with one).
    set.notify('set:a');
    set.notify('clear:b');
    set.finishLoad(token, ['b']);
    expect(set.mayHaveBudget('a')).toBe(true);
    expect(set.mayHaveBudget('b')).toBe(false);
  });

  it('forgets what it knew when the connection drops, until a load after it finishes', () => {
    const set = new BudgetedWorkspaces();
    set.finishLoad(set.beginLoad(), []);
    expect(set.mayHaveBudget('a')).toBe(false);
    const stale = set.beginLoad();
    set.lost();
    expect(set.mayHaveBudget('a')).toBe(true);
    // A load that started before the drop does not count.
    set.finishLoad(stale, []);
    expect(set.mayHaveBudget('a')).toBe(true);
    set.finishLoad(set.beginLoad(), []);
    expect(set.mayHaveBudget('a')).toBe(false);
  });

  it('stays unsure after a failed load', () => {
    const set = new BudgetedWorkspaces();
    set.failLoad(set.beginLoad());
    expect(set.isReady).toBe(false);
    expect(set.mayHaveBudget('a')).toBe(true);
  });
});
