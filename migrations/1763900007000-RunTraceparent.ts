import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C `traceparent` of the request that created a run (README "Tracing"). Step executions and
 * webhook deliveries of the run start traces of their own with a span link to it, so that a run
 * parked for days never makes one endless trace. Nullable: runs created before this migration, and
 * runs created without tracing and without a well-formed `traceparent` header, have none. 55
 * characters (`00-<32 hex>-<16 hex>-<2 hex>`); the column is never indexed or searched.
 */
export class RunTraceparent1763900007000 implements MigrationInterface {
  name = 'RunTraceparent1763900007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs ADD COLUMN traceparent varchar(55)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP COLUMN traceparent`);
  }
}
