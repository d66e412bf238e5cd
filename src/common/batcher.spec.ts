import { context, createContextKey, type Context } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Batcher } from './batcher';

/** A read whose batches are answered by the test: each call waits until `answer` settles it. */
function controlledRead() {
  const calls: Array<{
    items: readonly number[];
    answer: (results: Array<string | undefined>) => void;
    fail: (err: Error) => void;
  }> = [];
  const read = (items: readonly number[]) =>
    new Promise<Array<string | undefined>>((answer, fail) => calls.push({ items, answer, fail }));
  return { calls, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('sends an item at once when idle, and the items queued meanwhile together once a batch returns', async () => {
    const { calls, read } = controlledRead();
    const batcher = new Batcher(read, { maxInFlight: 1, maxBatch: 100 });
    const first = batcher.load(1);
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => batcher.load(n));
    expect(calls).toHaveLength(1);
    calls[0].answer(['one']);
    await expect(first).resolves.toBe('one');
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    // Each item gets its own result, in the order of the batch; undefined: nothing found.
    calls[1].answer(['two', undefined, 'four']);
    await expect(Promise.all(later)).resolves.toEqual(['two', undefined, 'four']);
  });

  it('keeps at most maxInFlight batches going and at most maxBatch items in one', async () => {
    const { calls, read } = controlledRead();
    const batcher = new Batcher(read, { maxInFlight: 2, maxBatch: 3 });
    const loads = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => batcher.load(n));
    // The first two items each start a read; the rest wait, three per read.
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    calls[1].answer(['b']);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2], [3, 4, 5]]);
    calls[0].answer(['a']);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2], [3, 4, 5], [6, 7, 8]]);
    calls[2].answer(['c', 'd', 'e']);
    calls[3].answer(['f', 'g', 'h']);
    await expect(Promise.all(loads)).resolves.toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  });

  it("runs each statement in its first item's context, never in that of an earlier batch", async () => {
    // The SDK's context manager (AsyncLocalStorage), as the service registers it with tracing on.
    new NodeTracerProvider().register();
    const request = createContextKey('request');
    const { calls, read } = controlledRead();
    const ran: unknown[] = [];
    const handed: unknown[][] = [];
    const name = (ctx: Context) => ctx.getValue(request);
    const plain = new Batcher(
      (items: readonly number[]) => {
        ran.push(name(context.active()));
        return read(items);
      },
      { maxInFlight: 1, maxBatch: 100 },
    );
    const traced = new Batcher(read, {
      maxInFlight: 1,
      maxBatch: 100,
      inContexts: (contexts, run) => {
        handed.push(contexts.map(name));
        return run();
      },
    });
    const load = (batcher: Batcher<number, string>, who: string, n: number) =>
      context.with(context.active().setValue(request, who), () => batcher.load(n));
    const a = load(plain, 'a', 1);
    const later = [load(plain, 'b', 2), load(plain, 'c', 3)];
    calls[0].answer(['one']);
    await a;
    calls[1].answer(['two', 'three']);
    await Promise.all(later);
    // The second statement starts in a's promise callback, but runs in b's context.
    expect(ran).toEqual(['a', 'b']);
    const d = load(traced, 'd', 4);
    const more = [load(traced, 'e', 5), load(traced, 'f', 6)];
    calls[2].answer(['four']);
    await d;
    calls[3].answer(['five', 'six']);
    await Promise.all(more);
    expect(handed).toEqual([['d'], ['e', 'f']]);
  });

  it('keeps a batch within maxWeight, and sends an item heavier than that alone', async () => {
    const { calls, read } = controlledRead();
    const batcher = new Batcher(read, {
      maxInFlight: 1,
      maxBatch: 100,
      weigh: (n: number) => n,
      maxWeight: 10,
    });
    const loads = [1, 4, 5, 2, 20, 3, 3].map((n) => batcher.load(n));
    calls[0].answer(['a']);
    await tick();
    // 4 + 5 = 9; with 2 it would be 11.
    expect(calls.map((c) => c.items)).toEqual([[1], [4, 5]]);
    calls[1].answer(['b', 'c']);
    await tick();
    calls[2].answer(['d']);
    await tick();
    calls[3].answer(['e']);
    await tick();
    calls[4].answer(['f', 'g']);
    expect(calls.map((c) => c.items)).toEqual([[1], [4, 5], [2], [20], [3, 3]]);
    await expect(Promise.all(loads)).resolves.toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('fails the items of a failed statement, and only those, and goes on', async () => {
    const { calls, read } = controlledRead();
    const batcher = new Batcher(read, { maxInFlight: 1, maxBatch: 100 });
    const first = batcher.load(1);
    const second = [batcher.load(2), batcher.load(3)];
    calls[0].fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    calls[1].answer(['two', 'three']);
    await expect(Promise.all(second)).resolves.toEqual(['two', 'three']);
  });
});
