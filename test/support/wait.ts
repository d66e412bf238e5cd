/** Thrown from a probe to stop waiting at once (the awaited outcome can no longer happen). */
export class GiveUp extends Error {}

/**
 * Polls `probe` until it returns something other than `undefined`, or fails once `timeoutMs` has passed.
 * The error names what was awaited and the last value or error seen, so a timeout explains itself.
 */
export async function waitFor<T>(
  description: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const interval = options.intervalMs ?? 50;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = undefined;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      last = err;
    }
    if (Date.now() >= deadline) {
      const why = last instanceof Error ? `: last error ${last.message}` : '';
      throw new Error(
        `timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${description}${why}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
