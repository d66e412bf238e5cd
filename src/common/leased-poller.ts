import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { CoalescedTask } from './coalesced-task';
import { PgListener } from './pg-listener';

export interface LeasedPollerOptions<T extends { readonly id: string }> {
  /** The poll interval's name in the SchedulerRegistry. */
  pollName: string;
  pollIntervalMs: number;
  /** Called at every poll while claiming (reaping expired leases, say); it wakes the loop itself. */
  poll: () => void;
  /** How many items run at once. */
  capacity: number;
  /** Claims at most `free` due items under this worker's id and lease. */
  claim: (free: number) => Promise<T[]>;
  /** Called in place of a claim when a wake finds every slot busy. */
  whenFull?: () => Promise<void>;
  /** Logged with the error when a claim (or `whenFull`) fails; the next wake or poll tries again. */
  claimFailed: string;
  /**
   * Runs one item. It may return the item to go on with in the same slot (the next step of a run),
   * which then takes the finished one's place without the slot being freed. It handles its own
   * failures: a rejection is not caught here.
   */
  run: (item: T, signal: AbortSignal) => Promise<T | null | void>;
  /** The LISTEN connection; without it the poll alone finds work. */
  listen?: {
    url: string;
    channels: string[];
    /** What a notification does; by default it wakes the loop. */
    onNotify?: (channel: string, payload: string | undefined) => void;
    label: string;
  };
  /** At shutdown, how long items in flight may go on before they are aborted. */
  graceMs: number;
  /** The reason their AbortSignals carry then. */
  abortReason: string;
  /** Told how many items the shutdown waits for. */
  onDraining?: (inFlight: number) => void;
  /**
   * Hands back to the queue whatever this worker still holds, at once rather than when its leases end.
   * Called once, after the abort, and only if the poller was claiming. It must not reject.
   */
  releaseAll: () => Promise<void>;
}

/**
 * The skeleton of a worker that claims due rows from Postgres under a lease: a worker id for the
 * leases, a poll registered with the SchedulerRegistry (correct on its own), a LISTEN connection that
 * only makes it prompt, one claim loop at a time filling the free slots, the items in flight with their
 * abort controllers, and the shutdown drain. What is claimed, how it runs and what a lease means stay
 * with the owner.
 *
 * The listener and the claiming start apart: a process that claims nothing may still need its
 * notifications (the executor's cancellations must reach steps on every process).
 */
export class LeasedPoller<T extends { readonly id: string }> {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, { item: T; abort: AbortController }>();
  private readonly filler = new CoalescedTask(() => this.fill());
  private listener?: PgListener;
  private claiming = false;
  private idle?: () => void;

  /** `logger` is the owner's, so that the poller's lines carry the owner's name. */
  constructor(
    private readonly logger: Logger,
    private readonly scheduler: SchedulerRegistry,
    private readonly options: LeasedPollerOptions<T>,
  ) {}

  /** Whether it claims: from `start()` until `stop()`. */
  get running(): boolean {
    return this.claiming;
  }

  /** The items in flight. */
  items(): T[] {
    return [...this.inFlight.values()].map((entry) => entry.item);
  }

  /** Opens the LISTEN connection, if there is one, without claiming anything yet. */
  async listen(): Promise<void> {
    const { listen } = this.options;
    if (!listen || this.listener) return;
    this.listener = new PgListener({
      url: listen.url,
      channels: listen.channels,
      onNotify: listen.onNotify ?? (() => this.wake()),
      onReconnect: () => this.wake(),
      logger: this.logger,
      label: listen.label,
    });
    await this.listener.start();
  }

  /**
   * Starts claiming: opens the listener unless `listen()` did, and registers the poll. The owner logs
   * its start line and then calls `wake()` for the first claim.
   */
  async start(): Promise<void> {
    this.claiming = true;
    if (this.options.listen && !this.listener) await this.listen();
    const poll = setInterval(() => {
      if (this.claiming) this.options.poll();
    }, this.options.pollIntervalMs);
    poll.unref();
    this.scheduler.addInterval(this.options.pollName, poll);
  }

  /**
   * Asks the loop to look for work now. The loop runs outside any trace, whoever wakes it (a request,
   * a step's timer): its claims and polls are not part of that work, and while idle they make no
   * spans at all (the database instrumentation only records queries made inside a span).
   */
  wake(): void {
    if (this.claiming) context.with(ROOT_CONTEXT, () => this.filler.trigger());
  }

  /** Aborts the items in flight that `match`; each signal's reason is an Error saying `reason`. */
  abort(match: (item: T) => boolean, reason: string): void {
    for (const { item, abort } of this.inFlight.values()) {
      if (match(item)) abort.abort(new Error(reason));
    }
  }

  /**
   * Stops claiming, lets the items in flight finish (graceMs at most), aborts the rest, has the owner
   * hand back what it holds, and closes the listener.
   */
  async stop(): Promise<void> {
    const { pollName } = this.options;
    const wasClaiming = this.claiming;
    this.claiming = false;
    if (this.scheduler.doesExist('interval', pollName)) this.scheduler.deleteInterval(pollName);
    if (wasClaiming && this.inFlight.size > 0) {
      this.options.onDraining?.(this.inFlight.size);
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise((resolve) => setTimeout(resolve, this.options.graceMs).unref()),
      ]);
    }
    this.abort(() => true, this.options.abortReason);
    if (wasClaiming) await this.options.releaseAll();
    await this.listener?.stop();
  }

  /** Claims until every slot is busy or nothing more may be claimed. */
  private async fill(): Promise<void> {
    const { capacity, claim, whenFull } = this.options;
    try {
      for (let woken = true; this.claiming; woken = false) {
        const free = capacity - this.inFlight.size;
        if (free <= 0) {
          if (woken && whenFull) await whenFull();
          break;
        }
        const claimed = await claim(free);
        for (const item of claimed) this.launch(item);
        if (claimed.length < free) break;
      }
    } catch (err) {
      this.logger.error({ err }, this.options.claimFailed);
    }
  }

  /** Runs an item in a slot, and whatever it goes on with, then frees the slot and looks for more. */
  private launch(first: T): void {
    let abort = new AbortController();
    this.inFlight.set(first.id, { item: first, abort });
    void (async () => {
      let current: T | null = first;
      try {
        while (current) {
          const next: T | null | void = await this.options.run(current, abort.signal);
          this.inFlight.delete(current.id);
          current = next ?? null;
          if (current) {
            abort = new AbortController();
            this.inFlight.set(current.id, { item: current, abort });
          }
        }
      } finally {
        if (current) this.inFlight.delete(current.id);
        if (this.inFlight.size === 0 && this.idle) this.idle();
        this.wake();
      }
    })();
  }
}
