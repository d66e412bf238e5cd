/**
 * Every query of the webhook sender, in one place, with why it is shaped the way it is. Delivery rows
 * are the queue (written by `enqueueWebhookEvent` in the transaction of the state change): a row is
 * claimable while it is `pending` and `next_attempt_at` has passed. Delivered and failed rows leave the
 * partial index `webhook_deliveries_due_idx`, so the claim costs the same however long the log grows.
 *
 * A claimed row stays `pending`, counts its attempt at once, and has `next_attempt_at` pushed to the end
 * of its lease: if the sender dies mid-attempt the row simply comes due again when the lease ends, with
 * no separate reaper. The result is recorded only while the row is still ours (same `locked_by` and
 * `attempts`), so a sender whose lease was taken over, or whose webhook was deleted, changes nothing.
 */

/**
 * Claims up to $2 due deliveries for sender $1 under a lease of $3 ms, counting the attempt. SKIP LOCKED
 * lets several senders claim at once without waiting on each other or taking the same row, and the
 * UPDATE moves `next_attempt_at` past now, so a row is never claimed twice for one attempt. The first
 * attempt waits $5 ms after the row was queued (the first entry of WEBHOOK_RETRY_DELAYS_MS); rows that
 * used their $4 attempts are left to EXPIRE_EXHAUSTED. The join returns the webhook's URL and secret
 * with the row; the CTE locks only the delivery (`FOR UPDATE OF d`), never the webhook.
 */
export const CLAIM_DELIVERIES = `
  WITH due AS (
    SELECT d.id FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= now()
      AND d.attempts < $4
      AND (d.attempts > 0 OR d.next_attempt_at <= now() - make_interval(secs => $5::float8 / 1000))
    ORDER BY d.next_attempt_at
    LIMIT $2
    FOR UPDATE OF d SKIP LOCKED
  )
  UPDATE webhook_deliveries d
  SET attempts = d.attempts + 1,
      locked_by = $1,
      lock_expires_at = now() + make_interval(secs => $3::float8 / 1000),
      next_attempt_at = now() + make_interval(secs => $3::float8 / 1000),
      updated_at = now()
  FROM due, webhooks w
  WHERE d.id = due.id AND w.id = d.webhook_id
  RETURNING d.id, d.webhook_id, d.message_id, d.event_type, d.body::text AS body, d.attempts,
            w.url, w.secret, w.is_active`;

/**
 * A row whose lease ran out during its last allowed attempt: its sender stopped (crash, kill) and
 * whether the receiver got it is unknown. It fails rather than exceed the attempt budget; the retry
 * endpoint sends it again. Uses the same partial index as the claim.
 */
export const EXPIRE_EXHAUSTED = `
  UPDATE webhook_deliveries
  SET status = 'failed', next_attempt_at = NULL, locked_by = NULL, lock_expires_at = NULL,
      last_error = 'the sender stopped during the last attempt; its outcome is unknown',
      updated_at = now()
  WHERE status = 'pending' AND next_attempt_at <= now() AND attempts >= $1
  RETURNING id`;

/** A 2xx answer. Only while the row is still ours ($2 sender, $3 attempt). */
export const RECORD_DELIVERED = `
  UPDATE webhook_deliveries
  SET status = 'delivered', delivered_at = now(), last_status_code = $4, last_error = NULL,
      next_attempt_at = NULL, locked_by = NULL, lock_expires_at = NULL, updated_at = now()
  WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'pending'`;

/**
 * A failed attempt: another one after $6 ms, or `failed` when $6 is null (no attempts left). The status
 * code is null when there was no answer at all.
 */
export const RECORD_FAILURE = `
  UPDATE webhook_deliveries
  SET status = CASE WHEN $6::float8 IS NULL THEN 'failed' ELSE 'pending' END,
      next_attempt_at = CASE WHEN $6::float8 IS NULL THEN NULL
                             ELSE now() + make_interval(secs => $6::float8 / 1000) END,
      last_status_code = $4, last_error = $5,
      locked_by = NULL, lock_expires_at = NULL, updated_at = now()
  WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'pending'`;

/**
 * A delivery claimed after its webhook was deleted (queued by a transaction that raced the delete): it
 * is closed without being sent.
 */
export const CLOSE_DELETED = `
  UPDATE webhook_deliveries
  SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = NULL,
      locked_by = NULL, lock_expires_at = NULL, updated_at = now()
  WHERE id = $1 AND locked_by = $2 AND status = 'pending'`;

/**
 * On shutdown, attempts this sender aborted before an answer go back to the queue at once, their attempt
 * not counted (the receiver de-duplicates by `webhook-id` should the aborted request have reached it).
 */
export const RELEASE_SENDER_DELIVERIES = `
  UPDATE webhook_deliveries
  SET attempts = GREATEST(attempts - 1, 0), next_attempt_at = now(),
      locked_by = NULL, lock_expires_at = NULL, updated_at = now()
  WHERE locked_by = $1 AND status = 'pending'
  RETURNING id`;
