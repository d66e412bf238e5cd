import type { CronSchedule } from './cron';

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/**
 * A fire is on time, not missed, while it is at most this late, whatever the catch-up window: the
 * scheduler polls and works through a backlog, so a fire claimed a few seconds after its time (a busy
 * database, a thousand schedules due in the same second) is started, each one of them, never merged.
 * Later than this, the service was down (or paused scheduling) and the catch-up window decides.
 */
export const LATE_FIRE_GRACE_MS = 10_000;
/** Fires passed over in one gap are counted up to this number (a per-second cron over a long outage). */
export const MISSED_COUNT_CAP = 1000;

/** A claimed schedule, as the plan needs it. */
export interface DueSchedule {
  /** The fire time the expression gave (the idempotency key's). */
  nextFireAt: Date;
  /** nextFireAt plus the fire's jitter: when it became due. */
  dueAt: Date;
  catchupWindowMs: number;
  overlapPolicy: OverlapPolicy;
  bufferedFireAt: Date | null;
  /** A run of this schedule is not terminal yet. */
  runActive: boolean;
  /** The jitter of a fire time (jitterFor with the schedule's id and jitterMs). */
  jitter: (fire: Date) => number;
}

/** What one claim of a due schedule does, applied in the claim's transaction. */
export interface FirePlan {
  /** The fire time to start a run for now, if any. */
  start: Date | null;
  /** buffer_one's remembered fire after this claim. */
  buffered: Date | null;
  /** Fires passed over by this claim: missed beyond the catch-up window, or refused by the policy. */
  skipped: number;
  /** The next fire time, or null when the expression fires no more. */
  next: Date | null;
}

/**
 * Decides a due schedule's claim at `now`.
 *
 * - On time (due at most LATE_FIRE_GRACE_MS ago): this fire; the next is the one after it, which may
 *   itself be due already (it is claimed next, so a backlog starts every fire in order).
 * - Late (every replica was down): only the latest fire at or before `now` may start, once, and only
 *   if it became due (its time plus its jitter) within `catchupWindowMs`; the ones before it are counted as skipped. The next fire is
 *   the first after `now`.
 * - Then the overlap policy, while a run of the schedule is still going: `skip` passes the fire over,
 *   `buffer_one` remembers it unless a fire is remembered already (then it is passed over), `allow`
 *   starts it.
 */
export function planFire(cron: CronSchedule, s: DueSchedule, now: Date): FirePlan {
  let fire: Date | null;
  let next: Date | null;
  let skipped = 0;
  if (now.getTime() - s.dueAt.getTime() <= LATE_FIRE_GRACE_MS) {
    fire = s.nextFireAt;
    next = cron.next(s.nextFireAt);
  } else {
    const latest = cron.latestAtOrBefore(now) ?? s.nextFireAt;
    skipped = countBetween(cron, s.nextFireAt, latest);
    // Measured from when the fire became due, as on time: a jittered fire is not older for it.
    if (now.getTime() - latest.getTime() - s.jitter(latest) <= s.catchupWindowMs) {
      fire = latest;
    } else {
      fire = null;
      skipped += 1;
    }
    next = cron.next(now);
  }
  let buffered = s.bufferedFireAt;
  if (fire && s.runActive) {
    switch (s.overlapPolicy) {
      case 'allow':
        break;
      case 'skip':
        fire = null;
        skipped += 1;
        break;
      case 'buffer_one':
        if (buffered === null) buffered = fire;
        else skipped += 1;
        fire = null;
        break;
    }
  }
  return { start: fire, buffered, skipped, next };
}

/** Fire times in [from, to), counted up to MISSED_COUNT_CAP. */
function countBetween(cron: CronSchedule, from: Date, to: Date): number {
  let count = 0;
  for (let at: Date | null = from; at && at < to && count < MISSED_COUNT_CAP; at = cron.next(at)) {
    count++;
  }
  return count;
}
