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
/**
 * Events were recorded; the payload is the ids of their runs, comma-separated (at most
 * RUN_IDS_PER_NOTIFICATION of them, so it stays under PostgreSQL's 8000-byte payload limit). Wakes the
 * live event streams (GET /v1/workflow-runs/:id/events/stream) of those runs, in every process.
 */
export const RUN_EVENTS_CHANNEL = 'wf_run_events';
/** 200 ids of 36 characters and their commas: 7,399 bytes. */
export const RUN_IDS_PER_NOTIFICATION = 200;
/**
 * The `application_name` of a connection that LISTENs on RUN_EVENTS_CHANNEL. The executor's hot
 * statements announce events only while such a connection exists (RunEventAnnouncer): a NOTIFY takes
 * PostgreSQL's notification-queue lock at every commit, streams or not.
 */
export const RUN_EVENTS_LISTENER_NAME = 'workflow-orchestrator run-events';
/** How often the executor looks whether any process listens for run events. */
export const ANNOUNCE_CHECK_MS = 1000;
