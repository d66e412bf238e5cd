// Runs once before the e2e files, outside Jest's module system (plain ESM, no transform).
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Picks the server (TEST_DATABASE_URL, else an embedded PostgreSQL), creates one template database
 * migrated by the built migration runner, and hands both to the test files through the environment.
 * Every test file then copies the template into a database of its own (test/support/database.ts).
 * Needs `npm run build` first (npm test does it).
 */
export default async function globalSetup() {
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = await mkdtemp(path.join(tmpdir(), 'wf-test-pg-'));
    // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory.
    await chmod(dir, 0o755);
    serverUrl = await startEmbeddedServer(path.join(dir, 'data'));
  }
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  const template = `wf_tmpl_${runId}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(serverUrl);
  templateUrl.pathname = `/${template}`;
  execFileSync(process.execPath, ['dist/database/migrate.js'], {
    env: { ...process.env, DATABASE_URL: templateUrl.toString() },
    stdio: 'pipe',
  });
  // Where each test process notes the operations and statuses it checked (test/support/openapi-check.ts).
  process.env.WF_OPENAPI_SEEN_DIR = await mkdtemp(path.join(tmpdir(), 'wf-openapi-seen-'));
  process.env.WF_TEST_SERVER_URL = serverUrl;
  process.env.WF_TEST_TEMPLATE = template;
  process.env.WF_TEST_RUN_ID = runId;
}

/** Starts test/support/embedded-server.mjs and waits for the URL it prints. */
function startEmbeddedServer(dataDir) {
  const child = spawn(process.execPath, ['test/support/embedded-server.mjs', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  globalThis.__EMBEDDED_PG__ = child;
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.on('exit', (code) => reject(new Error(`embedded PostgreSQL exited (code ${code})`)));
  });
}
