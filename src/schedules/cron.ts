import { createHash } from 'node:crypto';
import { Cron } from 'croner';

/** No schedule may fire more often than this (issue 15, "Bad input"). */
export const MIN_FIRE_INTERVAL_MS = 1000;
/** How many coming fire times a schedule's answer lists (`nextFireTimes`, design §10). */
export const NEXT_FIRE_TIMES = 5;
/** The fires looked at when checking how often an expression fires. */
const FREQUENCY_SAMPLE = 10;

/** A cron expression or time zone the service refuses, with the body field to name in the 400. */
export class ScheduleInputError extends Error {
  constructor(
    readonly field: 'cron' | 'timezone',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The IANA name of a time zone as the runtime spells it (`europe/berlin` -> `Europe/Berlin`), or
 * undefined for a zone the runtime does not know. Offsets (`+01:00`) are not zones: refused.
 */
export function canonicalTimeZone(timezone: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timezone)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * A schedule's expression, compiled for its zone: 5 fields (minute first), or 6 with seconds first,
 * as design §10 fixes. Nicknames (`@daily`) and a 7th (year) field are refused, so every expression
 * the service stores reads the same way to every client. Croner computes the fire times, DST
 * included: a time that does not exist on the day clocks go forward fires at the first instant after
 * the gap, and a time that occurs twice fires once.
 */
export class CronSchedule {
  private constructor(private readonly cron: Cron) {}

  /** Throws ScheduleInputError naming `cron` or `timezone`. */
  static compile(expression: string, timezone: string): CronSchedule {
    const zone = canonicalTimeZone(timezone);
    if (zone === undefined) {
      throw new ScheduleInputError('timezone', `unknown time zone "${timezone}" (an IANA name)`);
    }
    const fields = expression.trim().split(/\s+/);
    if (fields.length !== 5 && fields.length !== 6) {
      throw new ScheduleInputError(
        'cron',
        `a cron expression has 5 fields (minute hour day-of-month month day-of-week), or 6 with ` +
          `seconds first; this one has ${expression.trim() === '' ? 0 : fields.length}`,
      );
    }
    let cron: Cron;
    try {
      cron = new Cron(fields.join(' '), { mode: '5-or-6-parts', timezone: zone, paused: true });
    } catch (err) {
      const reason = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : 'invalid';
      throw new ScheduleInputError('cron', `cron expression does not parse: ${reason}`);
    }
    return new CronSchedule(cron);
  }

  /**
   * Compiles and checks that the expression fires at all from `now` on, and never twice within
   * MIN_FIRE_INTERVAL_MS. Throws ScheduleInputError.
   */
  static validate(expression: string, timezone: string, now: Date): CronSchedule {
    const schedule = CronSchedule.compile(expression, timezone);
    const sample = schedule.nextAfter(now, FREQUENCY_SAMPLE);
    if (sample.length === 0) {
      throw new ScheduleInputError('cron', 'cron expression never fires (no matching date)');
    }
    for (let i = 1; i < sample.length; i++) {
      if (sample[i].getTime() - sample[i - 1].getTime() < MIN_FIRE_INTERVAL_MS) {
        throw new ScheduleInputError(
          'cron',
          `cron expression fires more often than once every ${MIN_FIRE_INTERVAL_MS} ms`,
        );
      }
    }
    return schedule;
  }

  /** The first fire time strictly after `after`, or null when the expression fires no more. */
  next(after: Date): Date | null {
    return this.cron.nextRun(after);
  }

  /** Up to `n` fire times strictly after `after`. */
  nextAfter(after: Date, n: number): Date[] {
    return this.cron.nextRuns(n, after);
  }

  /** The last fire time at or before `at`, or null. */
  latestAtOrBefore(at: Date): Date | null {
    return this.cron.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
  }
}

/**
 * The delay of one fire: a deterministic spread in [0, jitterMs] from the schedule and the fire time,
 * so every replica computes the same due time for the same fire.
 */
export function jitterFor(scheduleId: string, fireAt: Date, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  const digest = createHash('sha256').update(`${scheduleId}:${fireAt.toISOString()}`).digest();
  return digest.readUInt32BE(0) % (jitterMs + 1);
}

/** The idempotency key of a scheduled fire's run: one run per schedule and fire time, ever. */
export function fireIdempotencyKey(scheduleId: string, fireAt: Date): string {
  return `schedule:${scheduleId}:${fireAt.toISOString()}`;
}
