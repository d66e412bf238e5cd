import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from './pg-url';

let fileDatabase: Promise<string> | undefined;

/** A fresh database copied from the migrated template; each call makes a new one. */
export async function createTestDatabase(): Promise<string> {
  const serverUrl = process.env.WF_TEST_SERVER_URL;
  const template = process.env.WF_TEST_TEMPLATE;
  const runId = process.env.WF_TEST_RUN_ID;
  if (!serverUrl || !template || !runId) throw new Error('e2e global setup did not run');
  const name = `wf_t_${runId}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // Concurrent copies of one template can collide briefly ("being accessed by other users").
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/** The database of the current test file, created on first use. */
export function fileDatabaseUrl(): Promise<string> {
  fileDatabase ??= createTestDatabase();
  return fileDatabase;
}

/** Runs statements in order on one connection to `connectionString`, then closes it. */
export async function runSql(connectionString: string, ...statements: string[]): Promise<void> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs statements on the test server's maintenance database (never on a database under test). */
export function onServer(...statements: string[]): Promise<void> {
  const serverUrl = process.env.WF_TEST_SERVER_URL;
  if (!serverUrl) throw new Error('e2e global setup did not run');
  return runSql(serverUrl, ...statements);
}
