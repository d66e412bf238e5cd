import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables that grow with every run: their new rows get time-ordered ids. */
const GROWING_TABLES = [
  'workflow_runs',
  'step_runs',
  'run_events',
  'approval_requests',
  'cost_records',
  'webhook_deliveries',
];

/**
 * Time-ordered ids (UUID version 7, RFC 9562) for the rows every run adds (issue 6, measured with
 * `npm run bench`).
 *
 * With random (version 4) ids, each new run, step run and event lands on a random leaf page of the
 * primary-key index and of the `(run_id, seq)` indexes. Once those indexes outgrow shared_buffers (at a
 * million runs they do), every insert reads a cold page, dirties it and, after each checkpoint, writes
 * it whole to the WAL. Version 7 ids begin with the millisecond timestamp, so new entries go to the
 * right-hand pages, which stay cached. Ids stay opaque UUIDs to clients; the creation time they carry
 * is already public as `createdAt`.
 *
 * `uuid_v7(at)` lays the Unix time of `at` (default: the current time) in milliseconds over the first
 * 48 bits of a random UUID and turns its version nibble from 4 into 7 (bits 52 and 53); the variant bits
 * stay as gen_random_uuid() set them.
 * The executor makes step ids in Node the same way (`timeOrderedUuid` in src/common/ids.ts).
 */
export class TimeOrderedIds1763900004000 implements MigrationInterface {
  name = 'TimeOrderedIds1763900004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION uuid_v7(at timestamptz DEFAULT clock_timestamp()) RETURNS uuid
      LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        SELECT encode(
          set_bit(set_bit(
            overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
            52, 1), 53, 1),
          'hex')::uuid
      $$`);
    for (const table of GROWING_TABLES) {
      await q.query(`ALTER TABLE ${table} ALTER COLUMN id SET DEFAULT uuid_v7()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of GROWING_TABLES) {
      await q.query(`ALTER TABLE ${table} ALTER COLUMN id SET DEFAULT gen_random_uuid()`);
    }
    await q.query(`DROP FUNCTION uuid_v7(timestamptz)`);
  }
}
