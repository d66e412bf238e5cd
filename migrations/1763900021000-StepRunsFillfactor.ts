import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page of `step_runs` for the update that records a step's outcome (issue 17, measured
 * with pg_waldump on 1(a)).
 *
 * A step row is inserted and, moments later, updated once or twice (the claim, the outcome). That
 * update cannot be HOT (the row leaves the partial lease or due index), but where its page has room
 * the new version stays on it. At fillfactor 100 the pages were full, so PostgreSQL moved the new
 * version to another page: it writes the whole new row to WAL instead of only what changed, and an
 * extra row-lock record (heap_update locks the old version while it looks for a page). At 70, 2,000
 * runs of 1(a): step_runs' heap-update WAL 627 -> 516 bytes per run and its row-lock records 2.86 ->
 * 1.58 per run (the one left per run is the claim's), about 180 bytes per run in all; the heap takes
 * 325 instead of 290 bytes per step row.
 *
 * Changing the fillfactor rewrites nothing: pages written from now on keep the room.
 */
export class StepRunsFillfactor1763900021000 implements MigrationInterface {
  name = 'StepRunsFillfactor1763900021000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE step_runs SET (fillfactor = 70)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE step_runs RESET (fillfactor)`);
  }
}
