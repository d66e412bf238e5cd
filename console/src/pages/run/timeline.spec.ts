import { axisTicks, layoutTimeline, MIN_BAR_PERCENT, stepDurationMs } from './timeline';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const step = (
  id: string,
  stepType: string,
  start: number | null,
  end: number | null,
  status = end === null ? 'RUNNING' : 'COMPLETED',
) => ({
  id,
  stepType,
  status,
  startedAt: start === null ? null : at(start),
  completedAt: end === null ? null : at(end),
});

describe('step timeline layout', () => {
  it('places each bar by its start and finish on an axis from the first start to the last end', () => {
    const layout = layoutTimeline(
      [
        step('a', 'task', 0, 2_000),
        step('b', 'wait', 2_000, 8_000),
        step('c', 'task', 8_000, 10_000),
      ],
      T0 + 60_000,
    );
    expect(layout.startMs).toBe(T0);
    expect(layout.endMs).toBe(T0 + 10_000);
    expect(layout.bars.map((b) => [b.id, b.left, b.width, b.durationMs])).toEqual([
      ['a', 0, 20, 2_000],
      ['b', 20, 60, 6_000],
      ['c', 80, 20, 2_000],
    ]);
  });

  it('draws waiting step types hollow and task-like ones solid', () => {
    const layout = layoutTimeline(
      [
        step('t', 'task', 0, 1),
        step('w', 'wait', 1, 2),
        step('e', 'external_event', 2, 3),
        step('p', 'approval', 3, 4),
        step('l', 'llm', 4, 5),
        step('c', 'condition', 5, 6),
      ],
      T0,
    );
    expect(layout.bars.filter((b) => b.hollow).map((b) => b.id)).toEqual(['w', 'e', 'p']);
  });

  it('runs an unfinished step run to now, and the axis with it', () => {
    const layout = layoutTimeline(
      [step('a', 'task', 0, 1_000), step('b', 'external_event', 1_000, null)],
      T0 + 4_000,
    );
    expect(layout.endMs).toBe(T0 + 4_000);
    expect(layout.bars[1]).toMatchObject({ left: 25, width: 75, open: true, durationMs: 3_000 });
    expect(layout.bars[0].open).toBe(false);
  });

  it('gives an instant step the minimum width, moved left when it would overhang the axis', () => {
    const layout = layoutTimeline(
      [step('a', 'task', 0, 10_000), step('b', 'task', 10_000, 10_000)],
      T0,
    );
    expect(layout.bars[1]).toMatchObject({ width: MIN_BAR_PERCENT, left: 100 - MIN_BAR_PERCENT });
    for (const bar of layout.bars) expect(bar.left + bar.width).toBeLessThanOrEqual(100);
  });

  it('keeps step runs that have not started off the axis, and copes with none started', () => {
    const layout = layoutTimeline(
      [step('a', 'task', 0, 500), step('b', 'task', null, null, 'PENDING')],
      T0,
    );
    expect(layout.bars[1]).toMatchObject({ positioned: false, durationMs: undefined });
    const empty = layoutTimeline([step('x', 'task', null, null, 'PENDING')], T0);
    expect(empty.bars[0].positioned).toBe(false);
    expect(empty.ticks).toEqual([]);
  });

  it('gives a run whose steps took no measurable time a one-millisecond axis', () => {
    const layout = layoutTimeline([step('a', 'task', 0, 0), step('b', 'task', 0, 0)], T0);
    expect(layout.bars.map((b) => b.left)).toEqual([0, 0]);
    expect(layout.bars.every((b) => b.width === MIN_BAR_PERCENT)).toBe(true);
  });

  it('puts ticks at round spacings, at most five intervals, within the span', () => {
    expect(axisTicks(10_000).map((t) => t.offsetMs)).toEqual([
      0, 2_000, 4_000, 6_000, 8_000, 10_000,
    ]);
    expect(axisTicks(10_000).map((t) => t.left)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(axisTicks(7)).toEqual(
      [0, 2, 4, 6].map((offsetMs) => ({
        offsetMs,
        left: Math.round((offsetMs / 7) * 10_000) / 100,
      })),
    );
    expect(axisTicks(3 * 3_600_000).map((t) => t.offsetMs)).toEqual(
      [0, 1, 2, 3].map((h) => h * 3_600_000),
    );
    const huge = axisTicks(90 * 86_400_000);
    expect(huge.length).toBeLessThanOrEqual(6);
    expect(axisTicks(0)).toEqual([]);
  });

  it('measures a step run until it finished, or until now while it goes on', () => {
    expect(stepDurationMs(step('a', 'task', 0, 1_500), T0 + 9_000)).toBe(1_500);
    expect(stepDurationMs(step('a', 'task', 0, null), T0 + 9_000)).toBe(9_000);
    expect(stepDurationMs(step('a', 'task', null, null), T0)).toBeUndefined();
  });
});
