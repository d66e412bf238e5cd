/** The statuses of a run, in the order of its life (the contract's list). */
export const RUN_STATUSES = [
  'PENDING',
  'RUNNING',
  'WAITING',
  'PAUSED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * The statuses a run ends in. `workflow_runs.ended_status` (migration EndedStatus) is the status when
 * it is one of these and NULL before: the run list's status filter and the schedules' overlap check
 * read it, so that a run's status changes before its end leave its indexes alone.
 */
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
