import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair sharing across workspaces (issue 11): the executor and the webhook sender claim round-robin
 * across workspaces instead of first-in-first-out, so their queues must be readable per tenant.
 *
 * - `step_runs_workspace_due_idx` replaces `step_runs_due_idx`: the same partial predicate (finished
 *   rows never enter it), keyed by workspace first. The claim walks the distinct workspaces with one
 *   descent each (a loose index scan) and reads each workspace's oldest due rows, so its cost follows
 *   the number of workspaces with queued steps, not the length of any one workspace's backlog. The old
 *   index had no other reader; keeping both would only double the index writes of every step.
 * - `webhook_deliveries_webhook_due_idx` does the same for the outbox per webhook (the unit of the
 *   per-endpoint cap). `webhook_deliveries_due_idx` stays for the expiry of exhausted rows, which looks
 *   for pending rows by time across all webhooks.
 */
export class FairClaims1763900006000 implements MigrationInterface {
  name = 'FairClaims1763900006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX step_runs_workspace_due_idx ON step_runs (workspace_id, due_at)
         WHERE status IN ('PENDING', 'WAITING') AND due_at IS NOT NULL`,
    );
    await q.query(`DROP INDEX step_runs_due_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_webhook_due_idx ON webhook_deliveries (webhook_id, next_attempt_at)
         WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_webhook_due_idx`);
    await q.query(
      `CREATE INDEX step_runs_due_idx ON step_runs (due_at)
         WHERE status IN ('PENDING', 'WAITING') AND due_at IS NOT NULL`,
    );
    await q.query(`DROP INDEX step_runs_workspace_due_idx`);
  }
}
