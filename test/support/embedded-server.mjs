// Child process of the e2e global setup: runs an embedded PostgreSQL (the service's own start-up code)
// outside Jest's require hooks, prints its URL as one JSON line, and stops it on SIGTERM.
import { startEmbeddedPostgres } from '../../dist/database/embedded-postgres.js';

const db = await startEmbeddedPostgres(process.argv[2]);
process.stdout.write(`${JSON.stringify({ url: db.url })}\n`);
const stop = async () => {
  await db.stop().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
