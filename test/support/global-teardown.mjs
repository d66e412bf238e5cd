import pg from 'pg';
import { checkOperationCoverage } from './openapi-coverage.mjs';

/**
 * Drops every database this run created, stops the embedded server if one was started, then fails a
 * whole run in which a documented operation was never exercised.
 */
export default async function globalTeardown(globalConfig, projectConfig) {
  const serverUrl = process.env.WF_TEST_SERVER_URL;
  const runId = process.env.WF_TEST_RUN_ID;
  if (serverUrl && runId) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
        [`wf\\_t\\_${runId}\\_%`, `wf_tmpl_${runId}`],
      );
      for (const { datname } of rows) {
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
      }
    } finally {
      await admin.end();
    }
  }
  const child = globalThis.__EMBEDDED_PG__;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await checkOperationCoverage(globalConfig, projectConfig);
}
