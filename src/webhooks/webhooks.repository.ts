import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';
import type { DeliveryStatus } from './dto/webhook.dto';
import { WEBHOOK_READY_CHANNEL } from '../queue/channels';
import type { WebhookEventType } from '../queue/outbox';
import { ENCRYPTED_PREFIX } from '../common/secret-cipher';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: WebhookEventType[];
  is_active: boolean;
  created_at: Date;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  message_id: string;
  event_type: WebhookEventType;
  run_id: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

const WEBHOOK_COLUMNS = 'id, workspace_id, url, events, is_active, created_at';
const DELIVERY_COLUMNS = `id, webhook_id, message_id, event_type, run_id, status, attempts,
  next_attempt_at, last_status_code, last_error, created_at, delivered_at`;

/**
 * Webhook registrations and their delivery log. Every read and write takes the workspace first. A
 * deleted webhook is kept as an inactive row with its secret erased: the outbox skips inactive
 * webhooks, and a soft delete never races the outbox's foreign key the way a hard delete would (an
 * event queued concurrently would fail the state change that queued it).
 */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts a webhook unless the workspace already has `limit` active ones. The workspace row lock
   * serialises concurrent creations, so the limit holds under concurrency.
   */
  create(
    workspaceId: string,
    id: string,
    url: string,
    events: WebhookEventType[],
    storedSecret: string,
    limit: number,
  ): Promise<WebhookRow | 'limit'> {
    return this.db.transaction(async (client) => {
      await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
      const count = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1 AND is_active',
        [workspaceId],
      );
      if (count.rows[0].n >= limit) return 'limit';
      const inserted = await client.query<WebhookRow>(
        `INSERT INTO webhooks (workspace_id, id, url, events, secret) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${WEBHOOK_COLUMNS}`,
        [workspaceId, id, url, events, storedSecret],
      );
      return inserted.rows[0];
    });
  }

  /**
   * One batch of the secret rewrite (rotation): the next `limit` active webhooks after `afterId`, in id
   * order, whose stored secret is not in the current form (`currentPrefix`, or plain text when it is
   * null), each replaced by what `rewrite` returns (undefined leaves it). The rows are locked for the
   * batch's transaction, so a process rewriting at the same time waits, and PostgreSQL re-checks the
   * condition after the wait: a row the other process just rewrote is no longer selected.
   * Deliberately across workspaces: this is an operator's maintenance pass, not a tenant query.
   */
  rewriteSecrets(
    afterId: string | null,
    currentPrefix: string | null,
    limit: number,
    rewrite: (id: string, stored: string) => string | undefined,
  ): Promise<{ lastId: string | null; seen: number; rewritten: number }> {
    return this.db.transaction(async (client) => {
      const res = await client.query<{ id: string; secret: string }>(
        `SELECT id, secret FROM webhooks
         WHERE is_active AND secret <> '' AND ($1::uuid IS NULL OR id > $1)
           AND CASE WHEN $2::text IS NULL THEN left(secret, length($3)) = $3
                    ELSE left(secret, length($2)) <> $2 END
         ORDER BY id LIMIT $4
         FOR UPDATE`,
        [afterId, currentPrefix, ENCRYPTED_PREFIX, limit],
      );
      let rewritten = 0;
      for (const row of res.rows) {
        const next = rewrite(row.id, row.secret);
        if (next === undefined) continue;
        await client.query('UPDATE webhooks SET secret = $2 WHERE id = $1', [row.id, next]);
        rewritten++;
      }
      const lastId = res.rows.length > 0 ? res.rows[res.rows.length - 1].id : null;
      return { lastId, seen: res.rows.length, rewritten };
    });
  }

  async list(workspaceId: string): Promise<WebhookRow[]> {
    const res = await this.db.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 AND is_active
       ORDER BY created_at DESC, id DESC`,
      [workspaceId],
    );
    return res.rows;
  }

  async exists(workspaceId: string, id: string): Promise<boolean> {
    const res = await this.db.query(
      'SELECT 1 FROM webhooks WHERE workspace_id = $1 AND id = $2 AND is_active',
      [workspaceId, id],
    );
    return (res.rowCount ?? 0) > 0;
  }

  /**
   * Deactivates the webhook and fails its pending deliveries in one transaction, so no further attempt
   * starts after the answer; an attempt already on the wire cannot record a result any more (it is no
   * longer `pending`). Rows an event queues concurrently are closed unsent by the sender, which checks
   * the webhook at claim time.
   */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const res = await client.query(
        `UPDATE webhooks SET is_active = false, secret = ''
         WHERE workspace_id = $1 AND id = $2 AND is_active`,
        [workspaceId, id],
      );
      if (res.rowCount === 0) return false;
      await client.query(
        `UPDATE webhook_deliveries
         SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = NULL,
             locked_by = NULL, lock_expires_at = NULL, updated_at = now()
         WHERE webhook_id = $1 AND status = 'pending'`,
        [id],
      );
      return true;
    });
  }

  async deliveries(
    workspaceId: string,
    webhookId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    const where = 'workspace_id = $1 AND webhook_id = $2 AND ($3::varchar IS NULL OR status = $3)';
    const params = [workspaceId, webhookId, status ?? null];
    const [rows, count] = await Promise.all([
      this.db.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where}
         ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
        [...params, limit, offset],
      ),
      this.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`,
        params,
      ),
    ]);
    return { rows: rows.rows, total: count.rows[0].n };
  }

  /**
   * Puts a failed delivery back in the queue with a fresh attempt budget (same body, same
   * `webhook-id`). Locks the webhook row (shared) so that a concurrent delete either comes first (the
   * webhook is gone: not found) or waits until the row is pending and then fails it.
   */
  retry(
    workspaceId: string,
    webhookId: string,
    deliveryId: string,
  ): Promise<DeliveryRow | 'not-found' | { conflict: DeliveryStatus }> {
    return this.db.transaction(async (client) => {
      const hook = await client.query(
        'SELECT 1 FROM webhooks WHERE workspace_id = $1 AND id = $2 AND is_active FOR SHARE',
        [workspaceId, webhookId],
      );
      if (hook.rowCount === 0) return 'not-found';
      const current = await client.query<{ status: DeliveryStatus }>(
        `SELECT status FROM webhook_deliveries
         WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3 FOR UPDATE`,
        [workspaceId, webhookId, deliveryId],
      );
      if (current.rowCount === 0) return 'not-found';
      if (current.rows[0].status !== 'failed') return { conflict: current.rows[0].status };
      const updated = await client.query<DeliveryRow>(
        `UPDATE webhook_deliveries
         SET status = 'pending', attempts = 0, next_attempt_at = now(), delivered_at = NULL,
             locked_by = NULL, lock_expires_at = NULL, updated_at = now()
         WHERE id = $1
         RETURNING ${DELIVERY_COLUMNS}`,
        [deliveryId],
      );
      await client.query('SELECT pg_notify($1, $2)', [WEBHOOK_READY_CHANNEL, '']);
      return updated.rows[0];
    });
  }
}
