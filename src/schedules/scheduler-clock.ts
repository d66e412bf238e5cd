import { Injectable } from '@nestjs/common';

/**
 * The time the scheduler and the schedules API reckon fires by: the system clock, shifted by an offset
 * that only tests (and embedders simulating time) set, so that a fire due in an hour, a missed night or
 * a DST change can be exercised without waiting for it. Database timestamps (created_at) stay real.
 */
@Injectable()
export class SchedulerClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves this process's scheduler time forward (or back) by `ms`. */
  shift(ms: number): void {
    this.offsetMs += ms;
  }
}
