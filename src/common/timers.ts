/**
 * The longest delay a Node.js timer honours (2^31 - 1 ms, about 24.8 days). A longer one does not wait
 * longer: setTimeout fires after 1 ms (with a TimeoutOverflowWarning) and AbortSignal.timeout throws,
 * so a step with a longer timeout would time out at once, or fail to start, on every attempt.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The delay to give a timer for `ms`: whole milliseconds within [0, MAX_TIMER_MS], rounded up (NaN and
 * negative values count as 0). For delays that come from data, checked nowhere before.
 */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(Math.ceil(ms), MAX_TIMER_MS);
}
