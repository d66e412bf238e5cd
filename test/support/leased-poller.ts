import type { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LeasedPoller, type LeasedPollerOptions } from '../../src/common/leased-poller';

interface Item {
  id: string;
}

/**
 * A poller over an in-memory queue whose runs end when the test says so (or, if `endOnAbort`, when
 * their signal is aborted). It records every claim's `free`, every run's signal, and the order of what
 * the shutdown does.
 */
export function harness(
  options: Partial<LeasedPollerOptions<Item>> & { endOnAbort?: boolean } = {},
) {
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
    // Short: a test that stops with items still in flight waits this long (those about the grace
    // period set their own).
    graceMs: 50,
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
export const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
