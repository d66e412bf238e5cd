import { context, type Context } from '@opentelemetry/api';

/**
 * What many requests need from the database at the same moment (GET one run's read, a run's create),
 * done by one statement: `load` queues one item; a batch (every item queued, within BatchLimits) starts
 * at once when fewer than `maxInFlight` batches run, else as soon as one of them returns. An idle
 * service sends each item on its own, at once; a busy one pays one statement (one round trip, one
 * parse and plan, one commit) for the items that arrived while the previous statement ran, and no
 * request waits longer than one statement for its turn. Each item's statement starts after the item
 * was queued, so it sees everything committed before the request asked.
 *
 * `run` answers the items of a batch in their order (undefined: nothing for that item); a failed
 * statement fails every item of its batch. A statement runs in the context of its first item's
 * request (unless `BatchLimits.inContexts` says otherwise), never in that of a request from an
 * earlier batch, which a promise callback would carry: its query span lands in the trace of a request
 * it serves.
 */
export class Batcher<Item, Result> {
  private queue: Array<{
    item: Item;
    /** The request's context when it queued the item (tracing). */
    context: Context;
    resolve: (result: Result | undefined) => void;
    reject: (err: unknown) => void;
  }> = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: readonly Item[]) => Promise<ReadonlyArray<Result | undefined>>,
    private readonly limits: BatchLimits<Item>,
  ) {}

  load(item: Item): Promise<Result | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, context: context.active(), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      const items = batch.map((b) => b.item);
      const contexts = batch.map((b) => b.context);
      const run = () => this.run(items);
      (this.limits.inContexts
        ? this.limits.inContexts(contexts, run)
        : context.with(contexts[0], run)
      ).then(
        (results) => {
          this.inFlight--;
          batch.forEach((b, i) => b.resolve(results[i]));
          this.pump();
        },
        (err: unknown) => {
          this.inFlight--;
          for (const b of batch) b.reject(err);
          this.pump();
        },
      );
    }
  }

  /** The next batch: the oldest items, within maxBatch and maxWeight (at least one item). */
  private take(): typeof this.queue {
    const { maxBatch, weigh, maxWeight = Infinity } = this.limits;
    let n = 0;
    let weight = 0;
    while (n < this.queue.length && n < maxBatch) {
      weight += weigh ? weigh(this.queue[n].item) : 0;
      if (n > 0 && weight > maxWeight) break;
      n++;
    }
    return this.queue.splice(0, n);
  }
}

/** How many statements a Batcher runs at once, and how much each may carry. */
export interface BatchLimits<Item> {
  maxInFlight: number;
  /** Items per statement at most. */
  maxBatch: number;
  /**
   * The size of an item (e.g. its bytes of JSON), and the sum a statement may carry: a batch stops
   * before the item that would pass it (an item larger than that goes alone).
   */
  weigh?: (item: Item) => number;
  maxWeight?: number;
  /**
   * Runs a statement, given the contexts in which its items were queued, in their order (tracing:
   * `traceBatch`). Without it, the statement runs in the first item's context.
   */
  inContexts?: <T>(contexts: readonly Context[], run: () => Promise<T>) => Promise<T>;
}

/**
 * A batch statement's rows put back in the order of its items: each row names its item by `n`
 * (1-based, `WITH ORDINALITY` of the items' arrays); undefined for an item with no row.
 */
export function inItemOrder<Row extends { n: number }>(
  rows: readonly Row[],
  items: number,
): Array<Row | undefined> {
  const ordered = new Array<Row | undefined>(items);
  for (const row of rows) ordered[row.n - 1] = row;
  return ordered;
}
