/**
 * Every query of the webhook sender, in one place, with why it is shaped the way it is. Delivery rows
 * are the queue (written by `enqueueWebhookEvent` in the transaction of the state change): a row is
 * claimable while it is `pending` and `next_attempt_at` has passed. Delivered and failed rows leave the
 * partial indexes `webhook_deliveries_webhook_due_idx` (the claim's) and `webhook_deliveries_due_idx`
 * (the expiry's), so neither costs more however long the log grows.
 *
 * A claimed row stays `pending`, counts its attempt at once, and has `next_attempt_at` pushed to the end
 * of its lease: if the sender dies mid-attempt the row simply comes due again when the lease ends, with
 * no separate reaper. The result is recorded only while the row is still ours (same `locked_by` and
 * `attempts`), so a sender whose lease was taken over, or whose webhook was deleted, changes nothing.
 */

/** A delivery that may be attempted now ($4 attempts at most, the first one $5 ms after queueing). */
const DUE = `
  d.status = 'pending' AND d.next_attempt_at <= now()
  AND d.attempts < $4
  AND (d.attempts > 0 OR d.next_attempt_at <= now() - make_interval(secs => $5::float8 / 1000))`;

/**
 * Claims up to $2 due deliveries for sender $1 under a lease of $3 ms, counting the attempt. The first
 * attempt waits $5 ms after the row was queued (the first entry of WEBHOOK_RETRY_DELAYS_MS); rows that
 * used their $4 attempts are left to EXPIRE_EXHAUSTED.
 *
 * Fair across workspaces and capped per webhook, so that one workspace's backlog or one endpoint that
 * hangs cannot hold every slot of the sender: `hooks` finds each webhook with pending rows by a loose
 * index scan (one descent of `webhook_deliveries_webhook_due_idx` per webhook, stepping to the next
 * webhook id), and each offers its oldest due rows, no more than the per-endpoint cap $8 minus its
 * attempts already in flight in this sender ($6 and $7 list the webhook and workspace of each attempt
 * in flight). A row's turn is its rank in its workspace plus the attempts that workspace has in
 * flight; turns are taken in order, oldest first within a turn. Rows beyond the cap are not claimed:
 * they stay due in the table, their attempt not counted, until a slot of their webhook frees.
 *
 * SKIP LOCKED lets several senders claim at once without waiting on each other or taking the same
 * row, and the UPDATE moves `next_attempt_at` past now, so a row is never claimed twice for one
 * attempt. The candidates are read without locks: the locking SELECT checks that each row still has
 * the status and due time it was read with (another sender's claim changes both), a check the partial
 * indexes cannot serve; with the ids listed as an array, the planner reaches the rows by primary key,
 * never by re-reading a backlog or the table. The final join returns the webhook's URL and secret with the row; the CTE
 * locks only the delivery (`FOR UPDATE OF d`), never the webhook. The run's traceparent (one primary
 * key lookup per claimed row, no lock) lets the delivery's span link to the request that started it.
 */
export const CLAIM_DELIVERIES = `
  WITH RECURSIVE hooks AS (
    (SELECT d.webhook_id FROM webhook_deliveries d WHERE d.status = 'pending'
     ORDER BY d.webhook_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.webhook_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.webhook_id > k.webhook_id
            ORDER BY d.webhook_id LIMIT 1)
    FROM hooks k WHERE k.webhook_id IS NOT NULL
  ), flight AS (
    SELECT * FROM unnest($6::uuid[], $7::uuid[]) AS f(webhook_id, workspace_id)
  ), candidates AS (
    SELECT c.id, c.status, c.next_attempt_at,
           (SELECT count(*) FROM flight f WHERE f.workspace_id = c.workspace_id)
             + row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.next_attempt_at) AS turn
    FROM hooks k
    CROSS JOIN LATERAL (
      SELECT d.id, d.status, d.next_attempt_at, d.workspace_id
      FROM webhook_deliveries d
      WHERE d.webhook_id = k.webhook_id AND ${DUE}
      ORDER BY d.next_attempt_at
      LIMIT LEAST($2, GREATEST(
        $8::int - (SELECT count(*) FROM flight f WHERE f.webhook_id = k.webhook_id), 0))
    ) c
  ), due AS (
    SELECT d.id FROM candidates c
    JOIN webhook_deliveries d
      ON d.id = c.id AND d.status = c.status AND d.next_attempt_at = c.next_attempt_at
    WHERE d.id = ANY (ARRAY(SELECT id FROM candidates))
    ORDER BY c.turn, c.next_attempt_at
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
  RETURNING d.id, d.webhook_id, d.workspace_id, d.message_id, d.event_type, d.body::text AS body,
            d.attempts, w.url, w.secret, w.is_active,
            (SELECT r.traceparent FROM workflow_runs r WHERE r.id = d.run_id) AS run_traceparent`;

/**
 * A row whose lease ran out during its last allowed attempt: its sender stopped (crash, kill) and
 * whether the receiver got it is unknown. It fails rather than exceed the attempt budget; the retry
 * endpoint sends it again. Uses the partial index `webhook_deliveries_due_idx`.
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
