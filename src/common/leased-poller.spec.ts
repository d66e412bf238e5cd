import { randomBytes } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { waitFor } from '../../test/support/wait';
import { LeasedPoller, type LeasedPollerOptions } from './leased-poller';

interface Item {
  id: string;
}

/**
 * A poller over an in-memory queue whose runs end when the test says so (or, if `endOnAbort`, when
 * their signal is aborted). It records every claim's `free`, every run's signal, and the order of what
 * the shutdown does.
 */
function harness(options: Partial<LeasedPollerOptions<Item>> & { endOnAbort?: boolean } = {}) {
  const due: Item[] = [];
  const claims: number[] = [];
  const signals = new Map<string, AbortSignal>();
  const endings = new Map<string, (next: Item | null) => void>();
  const order: string[] = [];
  const logger = { log: jest.fn(), warn: jest.fn(), error: jest.fn() };
  const scheduler = new SchedulerRegistry();
  const { endOnAbort, ...overrides } = options;
  const poller = new LeasedPoller<Item>(logger as unknown as Logger, scheduler, {
    pollName: 'test-poll',
    pollIntervalMs: 60_000,
    poll: jest.fn(),
    capacity: 3,
    claim: (free) => {
      claims.push(free);
      return Promise.resolve(due.splice(0, free));
    },
    claimFailed: 'claiming test items failed',
    run: (item, signal) => {
      signals.set(item.id, signal);
      return new Promise<Item | null>((resolve) => {
        endings.set(item.id, resolve);
        if (endOnAbort) {
          signal.addEventListener('abort', () => {
            order.push(`aborted ${item.id}`);
            resolve(null);
          });
        }
      });
    },
    graceMs: 5_000,
    abortReason: 'test poller stopping',
    onDraining: (count) => order.push(`draining ${count}`),
    releaseAll: () => {
      order.push('released');
      return Promise.resolve();
    },
    ...overrides,
  });
  const ids = () => poller.items().map((item) => item.id);
  /** Ends an item's run, optionally going on with `next` in its slot. */
  const end = (id: string, next: Item | null = null) => endings.get(id)!(next);
  const enqueue = (...names: string[]) => due.push(...names.map((id) => ({ id })));
  return { poller, scheduler, due, claims, signals, order, logger, ids, end, enqueue };
}

/** Lets pending promise callbacks and timers of 0 ms run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

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

const databaseUrl = process.env.TEST_DATABASE_URL;

(databaseUrl ? describe : describe.skip)('LeasedPoller with its LISTEN connection', () => {
  let notifier: Client;
  const channel = `leased_poller_test_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    notifier = new Client({ connectionString: databaseUrl });
    await notifier.connect();
  });
  afterAll(() => notifier.end());

  const notify = (payload: string) =>
    notifier.query('SELECT pg_notify($1, $2)', [channel, payload]);

  it('wakes the loop on a notification once it claims', async () => {
    const t = harness({ listen: { url: databaseUrl!, channels: [channel], label: 'test' } });
    await t.poller.start();
    t.enqueue('a');
    await notify('');
    await waitFor('a claimed after the notification', () =>
      t.ids().includes('a') ? true : undefined,
    );
    expect(t.claims).toEqual([3]);
    t.end('a');
    await t.poller.stop();
  });

  it("hands notifications to the owner's handler while listening without claiming", async () => {
    const received: Array<[string, string | undefined]> = [];
    const t = harness({
      listen: {
        url: databaseUrl!,
        channels: [channel],
        onNotify: (ch, payload) => received.push([ch, payload]),
        label: 'test',
      },
    });
    await t.poller.listen();
    t.enqueue('a');
    await notify('run-1');
    await waitFor('the notification', () => (received.length > 0 ? true : undefined));
    expect(received).toEqual([[channel, 'run-1']]);
    expect(t.claims).toEqual([]);
    await t.poller.stop();
    expect(t.order).toEqual([]);
  });
});
