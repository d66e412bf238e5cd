import {
  canonicalTimeZone,
  CronSchedule,
  fireIdempotencyKey,
  jitterFor,
  ScheduleInputError,
} from './cron';

const NOW = new Date('2026-03-28T12:00:00.000Z');

function refusal(cron: string, timezone = 'UTC'): ScheduleInputError {
  try {
    CronSchedule.validate(cron, timezone, NOW);
  } catch (err) {
    if (err instanceof ScheduleInputError) return err;
    throw err;
  }
  throw new Error(`"${cron}" in ${timezone} was accepted`);
}

describe('CronSchedule', () => {
  it('reads 5 fields as minute-first and 6 fields as seconds-first', () => {
    const five = CronSchedule.validate('30 2 * * *', 'UTC', NOW);
    expect(five.next(NOW)?.toISOString()).toBe('2026-03-29T02:30:00.000Z');
    const six = CronSchedule.validate('15 30 2 * * *', 'UTC', NOW);
    expect(six.next(NOW)?.toISOString()).toBe('2026-03-29T02:30:15.000Z');
  });

  it('fires at the local time of its zone, across the spring-forward gap and the autumn repeat', () => {
    const berlin = CronSchedule.validate('0 2 * * *', 'Europe/Berlin', NOW);
    // 29 March 2026: 02:00 does not exist in Berlin (01:59 CET is followed by 03:00 CEST).
    expect(berlin.nextAfter(NOW, 3).map((d) => d.toISOString())).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
    // 25 October 2026: 02:30 happens twice in Berlin (CEST, then CET); it fires once, the first time.
    const autumn = CronSchedule.validate('30 2 * * *', 'Europe/Berlin', NOW);
    const oct24 = new Date('2026-10-24T12:00:00.000Z');
    expect(autumn.nextAfter(oct24, 2).map((d) => d.toISOString())).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('allows once a second, the finest a cron expression says', () => {
    const everySecond = CronSchedule.validate('* * * * * *', 'UTC', NOW);
    expect(everySecond.nextAfter(NOW, 2).map((d) => d.getTime() - NOW.getTime())).toEqual([
      1000, 2000,
    ]);
  });

  it('finds the latest fire at or before a time', () => {
    const hourly = CronSchedule.compile('0 * * * *', 'UTC');
    expect(hourly.latestAtOrBefore(NOW)?.toISOString()).toBe('2026-03-28T12:00:00.000Z');
    expect(hourly.latestAtOrBefore(new Date(NOW.getTime() - 1))?.toISOString()).toBe(
      '2026-03-28T11:00:00.000Z',
    );
  });

  it.each([
    ['', 'has 5 fields'],
    ['* * * *', 'has 5 fields'],
    ['* * * * * * *', 'has 5 fields'],
    ['@daily', 'has 5 fields'],
    ['61 * * * *', 'does not parse'],
    ['* * * * mon-funday', 'does not parse'],
    ['0 0 30 2 *', 'never fires'],
  ])('refuses the expression "%s" naming cron', (cron, message) => {
    const err = refusal(cron);
    expect(err.field).toBe('cron');
    expect(err.message).toContain(message);
  });

  it.each(['Mars/Olympus_Mons', '+01:00', 'UTC; DROP', ''])(
    'refuses the time zone "%s" naming timezone',
    (zone) => {
      const err = refusal('* * * * *', zone);
      expect(err.field).toBe('timezone');
    },
  );
});

describe('canonicalTimeZone', () => {
  it('spells a known zone as the runtime does', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
  });
});

describe('jitterFor', () => {
  it('is the same for the same fire, within [0, jitterMs], and 0 without jitter', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const a = jitterFor('s1', at, 5000);
    expect(jitterFor('s1', at, 5000)).toBe(a);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThanOrEqual(5000);
    expect(jitterFor('s1', at, 0)).toBe(0);
    const spread = new Set(
      Array.from({ length: 50 }, (_, i) =>
        jitterFor('s1', new Date(at.getTime() + i * 60_000), 5000),
      ),
    );
    expect(spread.size).toBeGreaterThan(40);
  });
});

describe('fireIdempotencyKey', () => {
  it('names the schedule and the fire time', () => {
    expect(fireIdempotencyKey('abc', new Date('2026-01-01T00:00:00.000Z'))).toBe(
      'schedule:abc:2026-01-01T00:00:00.000Z',
    );
  });
});
