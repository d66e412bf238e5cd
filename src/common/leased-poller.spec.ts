import { harness, settle } from '../../test/support/leased-poller';
import { waitFor } from '../../test/support/wait';

describe('LeasedPoller', () => {
  it('claims as many items as slots are free, and claims again when a slot frees', async () => {
    const whenFull = jest.fn(() => Promise.resolve());
    const t = harness({ whenFull });
    t.enqueue('a', 'b', 'c', 'd', 'e');
    await t.poller.start();
    t.poller.wake();
    await waitFor('three items in flight', () => (t.ids().length === 3 ? true : undefined));
    await settle();
    expect(t.claims).toEqual([3]);
    expect(t.ids()).toEqual(['a', 'b', 'c']);
    // Filling the last slot is not a wake that finds every slot busy.
    expect(whenFull).not.toHaveBeenCalled();

    t.end('a');
    await waitFor('d in flight', () => (t.ids().includes('d') ? true : undefined));
    expect(t.claims).toEqual([3, 1]);
    expect(t.ids()).toEqual(['b', 'c', 'd']);
    await t.poller.stop();
  });

  it('turns any number of wakes during a claim into one claim more', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let claims = 0;
    const t = harness({
      claim: async () => {
        claims++;
        await gate;
        return [];
      },
    });
    await t.poller.start();
    t.poller.wake();
    for (let i = 0; i < 5; i++) t.poller.wake();
    open();
    await settle();
    expect(claims).toBe(2);
    await t.poller.stop();
  });

  it('asks whenFull instead of claiming when a wake finds every slot busy', async () => {
    const whenFull = jest.fn(() => Promise.resolve());
    const t = harness({ capacity: 1, whenFull });
    t.enqueue('a', 'b');
    await t.poller.start();
    t.poller.wake();
    await waitFor('a in flight', () => (t.ids().length === 1 ? true : undefined));
    t.poller.wake();
    await settle();
    expect(whenFull).toHaveBeenCalledTimes(1);
    expect(t.claims).toEqual([1]);
    await t.poller.stop();
  });

  it('logs a failed claim with the owner message and claims again at the next wake', async () => {
    let fail = true;
    const t = harness({
      claim: (free) => {
        t.claims.push(free);
        return fail ? Promise.reject(new Error('database gone')) : Promise.resolve([]);
      },
    });
    await t.poller.start();
    t.poller.wake();
    await settle();
    expect(t.logger.error).toHaveBeenCalledWith(
      { err: new Error('database gone') },
      'claiming test items failed',
    );
    fail = false;
    t.poller.wake();
    await settle();
    expect(t.claims).toEqual([3, 3]);
    await t.poller.stop();
  });

  it('hands a slot to the item a run goes on with, with a signal of its own and no claim', async () => {
    const t = harness({ capacity: 1 });
    t.enqueue('a');
    await t.poller.start();
    t.poller.wake();
    await waitFor('a in flight', () => (t.ids().length === 1 ? true : undefined));
    t.end('a', { id: 'a2' });
    await waitFor('a2 in flight', () => (t.signals.has('a2') ? true : undefined));
    expect(t.ids()).toEqual(['a2']);
    expect(t.claims).toEqual([1]);

    t.poller.abort((item) => item.id === 'a2', 'run cancelled');
    expect(t.signals.get('a')!.aborted).toBe(false);
    expect(t.signals.get('a2')!.aborted).toBe(true);

    t.end('a2');
    await waitFor('a second claim', () => (t.claims.length === 2 ? true : undefined));
    expect(t.ids()).toEqual([]);
    await t.poller.stop();
  });

  it('aborts only the items in flight that match, each with an Error saying the reason', async () => {
    const t = harness();
    t.enqueue('a', 'b', 'c');
    await t.poller.start();
    t.poller.wake();
    await waitFor('three items in flight', () => (t.ids().length === 3 ? true : undefined));
    t.poller.abort((item) => item.id !== 'b', 'run cancelled');
    expect([...t.signals.values()].map((s) => s.aborted)).toEqual([true, false, true]);
    const reason: unknown = t.signals.get('a')!.reason;
    expect(reason).toEqual(new Error('run cancelled'));
    expect(reason).not.toBe(t.signals.get('c')!.reason);
    await t.poller.stop();
  });

  it('on stop, lets the items in flight finish within the grace period and releases once', async () => {
    const t = harness({ graceMs: 30_000 });
    t.enqueue('a', 'b');
    await t.poller.start();
    t.poller.wake();
    await waitFor('two items in flight', () => (t.ids().length === 2 ? true : undefined));
    const startedAt = Date.now();
    const stopped = t.poller.stop();
    expect(t.poller.running).toBe(false);
    expect(t.scheduler.doesExist('interval', 'test-poll')).toBe(false);
    t.enqueue('c');
    t.end('a');
    t.end('b');
    await stopped;
    // It stopped waiting when the last item ended, not at the end of the grace period.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(t.order).toEqual(['draining 2', 'released']);
    expect([...t.signals.values()].some((s) => s.aborted)).toBe(false);
    // Stopping no longer claims, even when a finished item wakes the loop.
    expect(t.claims).toEqual([3]);

    await t.poller.stop();
    expect(t.order).toEqual(['draining 2', 'released']);
  });

  it('on stop, aborts what is still in flight after the grace period, then releases', async () => {
    const t = harness({ graceMs: 50, endOnAbort: true });
    t.enqueue('a', 'b');
    await t.poller.start();
    t.poller.wake();
    await waitFor('two items in flight', () => (t.ids().length === 2 ? true : undefined));
    const startedAt = Date.now();
    await t.poller.stop();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(t.order).toEqual(['draining 2', 'aborted a', 'aborted b', 'released']);
    expect(t.signals.get('a')!.reason).toEqual(new Error('test poller stopping'));
  });

  it('neither drains nor releases when it never claimed, and ignores wakes until it starts', async () => {
    const t = harness();
    t.enqueue('a');
    t.poller.wake();
    await settle();
    expect(t.claims).toEqual([]);
    await t.poller.stop();
    expect(t.order).toEqual([]);
  });

  it('polls through the named interval while it claims, and removes it on stop', async () => {
    const poll = jest.fn();
    const t = harness({ pollIntervalMs: 10, poll });
    await t.poller.start();
    expect(t.scheduler.doesExist('interval', 'test-poll')).toBe(true);
    await waitFor('two polls', () => (poll.mock.calls.length >= 2 ? true : undefined));
    await t.poller.stop();
    expect(t.scheduler.doesExist('interval', 'test-poll')).toBe(false);
    const polls = poll.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(poll.mock.calls.length).toBe(polls);
  });
});
