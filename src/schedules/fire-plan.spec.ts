import { CronSchedule } from './cron';
import { LATE_FIRE_GRACE_MS, planFire, type DueSchedule } from './fire-plan';

const minutely = CronSchedule.compile('0 * * * * *', 'UTC');
const at = (iso: string) => new Date(`2026-01-01T${iso}.000Z`);

function due(overrides: Partial<DueSchedule> = {}): DueSchedule {
  return {
    nextFireAt: at('10:00:00'),
    dueAt: at('10:00:00'),
    catchupWindowMs: 60_000,
    overlapPolicy: 'skip',
    bufferedFireAt: null,
    runActive: false,
    jitter: () => 0,
    ...overrides,
  };
}

describe('planFire', () => {
  it('starts an on-time fire and moves to the fire after it', () => {
    expect(planFire(minutely, due(), at('10:00:00'))).toEqual({
      start: at('10:00:00'),
      buffered: null,
      skipped: 0,
      next: at('10:01:00'),
    });
  });

  it('starts each fire of a short backlog in turn rather than merging them', () => {
    const now = new Date(at('10:01:00').getTime() + LATE_FIRE_GRACE_MS - 2000);
    const plan = planFire(
      minutely,
      due({ nextFireAt: at('10:01:00'), dueAt: at('10:01:00') }),
      now,
    );
    expect(plan.start).toEqual(at('10:01:00'));
    expect(plan.skipped).toBe(0);
  });

  it('measures lateness from the jittered due time', () => {
    const plan = planFire(
      minutely,
      due({ dueAt: new Date(at('10:00:00').getTime() + 30_000) }),
      new Date(at('10:00:30').getTime() + LATE_FIRE_GRACE_MS),
    );
    expect(plan.start).toEqual(at('10:00:00'));
  });

  it('after a gap starts the latest missed fire once when it lies within the window, skipping the rest', () => {
    const plan = planFire(minutely, due({ catchupWindowMs: 60_000 }), at('10:07:30'));
    expect(plan).toEqual({
      start: at('10:07:00'),
      buffered: null,
      skipped: 7,
      next: at('10:08:00'),
    });
  });

  it('after a gap measures the latest fire from its jittered due time', () => {
    const plan = planFire(
      minutely,
      due({ catchupWindowMs: 10_000, jitter: () => 25_000 }),
      at('10:07:30'),
    );
    expect(plan.start).toEqual(at('10:07:00'));
    expect(plan.skipped).toBe(7);
  });

  it('after a gap longer than the window skips every missed fire', () => {
    const plan = planFire(minutely, due({ catchupWindowMs: 10_000 }), at('10:07:30'));
    expect(plan).toEqual({ start: null, buffered: null, skipped: 8, next: at('10:08:00') });
  });

  it('skip: passes the fire over while a run is going', () => {
    const plan = planFire(minutely, due({ runActive: true }), at('10:00:01'));
    expect(plan).toEqual({ start: null, buffered: null, skipped: 1, next: at('10:01:00') });
  });

  it('buffer_one: remembers one fire while a run is going, and passes further ones over', () => {
    const first = planFire(
      minutely,
      due({ runActive: true, overlapPolicy: 'buffer_one' }),
      at('10:00:01'),
    );
    expect(first).toEqual({
      start: null,
      buffered: at('10:00:00'),
      skipped: 0,
      next: at('10:01:00'),
    });
    const second = planFire(
      minutely,
      due({
        runActive: true,
        overlapPolicy: 'buffer_one',
        nextFireAt: at('10:01:00'),
        dueAt: at('10:01:00'),
        bufferedFireAt: at('10:00:00'),
      }),
      at('10:01:01'),
    );
    expect(second).toEqual({
      start: null,
      buffered: at('10:00:00'),
      skipped: 1,
      next: at('10:02:00'),
    });
  });

  it('allow: starts the fire while a run is going', () => {
    const plan = planFire(
      minutely,
      due({ runActive: true, overlapPolicy: 'allow' }),
      at('10:00:01'),
    );
    expect(plan.start).toEqual(at('10:00:00'));
  });

  it('reports no next fire for an expression that fires no more', () => {
    const once = CronSchedule.compile('0 0 0 1 1 *', 'UTC');
    const plan = planFire(
      once,
      due({ nextFireAt: at('00:00:00'), dueAt: at('00:00:00') }),
      at('00:00:01'),
    );
    expect(plan.start).toEqual(at('00:00:00'));
    expect(plan.next?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
