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
