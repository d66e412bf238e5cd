import path from 'node:path';
import { Client } from 'pg';

/**
 * Test files that measure time against a budget (a lease, a timeout, a latency bound) run alone: while
 * one of them runs, no other file does, so the other Jest worker's load cannot push them past it.
 * Every other file runs beside any other. Paths are relative to the repository.
 */
const ALONE = new Set([
  // Steps lose 2 s leases while PostgreSQL is away; requests are timed against the connect timeout.
  'test/database-outage.e2e-spec.ts',
  // Hostile expressions must fail by their own limit (size, depth, memory) before the 1 s budget.
  'test/expression-sandbox.e2e-spec.ts',
  'src/expressions/expression-sandbox.spec.ts',
  // Another workspace's latency is bounded while one workspace floods the sender or the executor.
  'test/fairness.e2e-spec.ts',
  // A scrape while the database is away answers within 1 s.
  'test/metrics.e2e-spec.ts',
  // Retry gaps are checked against the configured delays.
  'test/webhook-delivery.e2e-spec.ts',
  // Other workspaces' latency is bounded while one sends pathological patterns.
  'test/linear-regex.e2e-spec.ts',
]);

/** Any fixed 64-bit key: the lock every test file takes, shared or exclusive. */
const LOCK_KEY = 7_214_113_042;

/**
 * Registered for every test file (setupFilesAfterEnv): takes the run's file lock on the test server
 * before the file's own hooks, exclusive for the files in ALONE and shared for the rest, and lets it
 * go after them. PostgreSQL queues a shared request behind a waiting exclusive one, so a file that
 * must run alone waits only for the file the other worker is running. Without a test server (a unit
 * run with no e2e global setup) there is nothing to share and no lock.
 */
function takeFileLock(): void {
  const serverUrl = process.env.WF_TEST_SERVER_URL;
  if (!serverUrl) return;
  const file = path.relative(path.resolve(__dirname, '../..'), expect.getState().testPath ?? '');
  const alone = ALONE.has(file.split(path.sep).join('/'));
  let client: Client | undefined;
  // Its timeout: as long as the longest file the other worker may be running meanwhile.
  beforeAll(async () => {
    client = new Client({ connectionString: serverUrl, application_name: 'jest file lock' });
    // The lock dies with its connection; a dropped one must not fail the file.
    client.on('error', () => undefined);
    await client.connect();
    await client.query(
      alone ? 'SELECT pg_advisory_lock($1)' : 'SELECT pg_advisory_lock_shared($1)',
      [LOCK_KEY],
    );
  }, 600_000);
  afterAll(async () => {
    await client?.end().catch(() => undefined);
  });
}

takeFileLock();
