/**
 * The NOTIFY channels of the queue. NOTIFY only wakes listeners early: every consumer also polls, so a
 * lost notification delays work and never loses it.
 */

/** A step run became due now (created, retried at once, woken by a signal or a decision). */
export const STEP_READY_CHANNEL = 'wf_step_ready';
/** A run was cancelled; the payload is its id, so that every process aborts its in-flight step. */
export const RUN_CANCELLED_CHANNEL = 'wf_run_cancelled';
/** A webhook delivery was queued. */
export const WEBHOOK_READY_CHANNEL = 'wf_webhook_ready';
