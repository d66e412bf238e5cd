/**
 * The step timeline's layout: where each step run's bar sits on a shared time axis, and the axis's
 * ticks. Pure (times in, percentages out) so that the arithmetic is unit-tested (timeline.spec.ts) and
 * the component only draws what this returns.
 */

export interface TimelineStepRun {
  id: string;
  stepType: string;
  status: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface TimelineBar {
  id: string;
  /** False for a step run that has not started: it has no place on the axis yet. */
  positioned: boolean;
  /** Offset of the bar's start from the axis start, in % of the axis (0-100). */
  left: number;
  /** Width in % of the axis; at least MIN_BAR_PERCENT so that an instant step stays visible. */
  width: number;
  /** Time the step run took, or has taken so far; undefined when it has not started. */
  durationMs: number | undefined;
  /** Still going (started, not finished): its end is `now`. */
  open: boolean;
  /** Time spent waiting (a wait, an external event, an approval): drawn hollow. */
  hollow: boolean;
}

export interface TimelineTick {
  /** Milliseconds from the axis start. */
  offsetMs: number;
  /** Position in % of the axis. */
  left: number;
}

export interface TimelineLayout {
  /** The axis start (the first step run's start) and end, in ms since the epoch; 0 when empty. */
  startMs: number;
  endMs: number;
  bars: TimelineBar[];
  ticks: TimelineTick[];
}

/** Step types whose time is spent waiting for something outside the executor. */
export const WAITING_STEP_TYPES: ReadonlySet<string> = new Set([
  'wait',
  'external_event',
  'approval',
  'workflow',
]);

/** The narrowest bar, in % of the axis. */
export const MIN_BAR_PERCENT = 0.75;

/** Tick spacings the axis picks from (ms): 1-2-5 steps, then whole seconds, minutes, hours, days. */
const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000,
  300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
  86_400_000, 172_800_000, 604_800_000,
];

/** At most this many intervals between ticks. */
const MAX_TICK_INTERVALS = 5;

/** Whether a step run's time is waiting time (drawn hollow). */
export function isWaitingStep(stepType: string): boolean {
  return WAITING_STEP_TYPES.has(stepType);
}

/** How long a step run took, or has taken until `now` while it goes on; undefined before it starts. */
export function stepDurationMs(step: TimelineStepRun, now: number): number | undefined {
  if (!step.startedAt) return undefined;
  const start = Date.parse(step.startedAt);
  const end = step.completedAt ? Date.parse(step.completedAt) : now;
  return Math.max(0, end - start);
}

/**
 * One bar per step run, in the order given, on an axis from the first start to the last end (`now`
 * for a step run still going). Bars never leave the axis: a minimum-width bar at the very end is
 * moved left by what it overhangs.
 */
export function layoutTimeline(steps: TimelineStepRun[], now: number): TimelineLayout {
  const spans = steps.map((step) => {
    if (!step.startedAt) return undefined;
    const start = Date.parse(step.startedAt);
    const end = step.completedAt
      ? Math.max(start, Date.parse(step.completedAt))
      : Math.max(start, now);
    return { start, end };
  });
  const known = spans.filter((s): s is { start: number; end: number } => s !== undefined);
  if (known.length === 0) {
    return {
      startMs: 0,
      endMs: 0,
      bars: steps.map((step) => unpositioned(step)),
      ticks: [],
    };
  }
  const startMs = Math.min(...known.map((s) => s.start));
  const endMs = Math.max(...known.map((s) => s.end));
  // A run whose steps all took no measurable time still gets an axis (and full-width ticks).
  const span = Math.max(1, endMs - startMs);
  const bars = steps.map((step, i): TimelineBar => {
    const s = spans[i];
    if (!s) return unpositioned(step);
    let left = ((s.start - startMs) / span) * 100;
    const width = Math.max(MIN_BAR_PERCENT, ((s.end - s.start) / span) * 100);
    if (left + width > 100) left = Math.max(0, 100 - width);
    return {
      id: step.id,
      positioned: true,
      left: round(left),
      width: round(Math.min(width, 100)),
      durationMs: s.end - s.start,
      open: !step.completedAt,
      hollow: isWaitingStep(step.stepType),
    };
  });
  return { startMs, endMs, bars, ticks: axisTicks(span) };
}

/** Evenly spaced ticks at a round spacing, from 0 to at most the span (both ends included when round). */
export function axisTicks(spanMs: number): TimelineTick[] {
  if (!(spanMs > 0)) return [];
  const wanted = spanMs / MAX_TICK_INTERVALS;
  const step =
    TICK_STEPS.find((candidate) => candidate >= wanted) ??
    Math.ceil(wanted / TICK_STEPS[TICK_STEPS.length - 1]) * TICK_STEPS[TICK_STEPS.length - 1];
  const ticks: TimelineTick[] = [];
  for (let offset = 0; offset <= spanMs; offset += step) {
    ticks.push({ offsetMs: offset, left: round((offset / spanMs) * 100) });
  }
  return ticks;
}

function unpositioned(step: TimelineStepRun): TimelineBar {
  return {
    id: step.id,
    positioned: false,
    left: 0,
    width: 0,
    durationMs: undefined,
    open: false,
    hollow: isWaitingStep(step.stepType),
  };
}

/** Two decimals: enough for a pixel on any screen, and stable numbers in the tests. */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}
