/**
 * What many requests need from the database at the same moment (GET one run's read, a run's create),
 * done by one statement: `load` queues one item; a batch (every item queued, up to `maxBatch`) starts
 * at once when fewer than `maxInFlight` batches run, else as soon as one of them returns. An idle
 * service sends each item on its own, at once; a busy one pays one statement (one round trip, one
 * parse and plan, one commit) for the items that arrived while the previous statement ran, and no
 * request waits longer than one statement for its turn. Each item's statement starts after the item
 * was queued, so it sees everything committed before the request asked.
 *
 * `run` answers the items of a batch in their order (undefined: nothing for that item); a failed
 * statement fails every item of its batch.
 */
export class Batcher<Item, Result> {
  private queue: Array<{
    item: Item;
    resolve: (result: Result | undefined) => void;
    reject: (err: unknown) => void;
  }> = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: readonly Item[]) => Promise<ReadonlyArray<Result | undefined>>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
  ) {}

  load(item: Item): Promise<Result | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      this.run(batch.map((b) => b.item)).then(
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
}
