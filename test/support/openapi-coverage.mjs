// Read by the global teardown (plain ESM, outside Jest's module system).
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * True when Jest ran every e2e file and every test in them: only then must every operation have been
 * exercised (a run of one file or one test sees a part of the API).
 */
export function isWholeRun(globalConfig, projectConfig) {
  const ignored = projectConfig?.testPathIgnorePatterns ?? [];
  return (
    ignored.every((pattern) => pattern === '/node_modules/') &&
    !globalConfig.testPathPattern &&
    !(globalConfig.testPathPatterns?.length > 0) &&
    !globalConfig.testNamePattern &&
    !(globalConfig.nonFlagArgs?.length > 0) &&
    !globalConfig.runTestsByPath &&
    !globalConfig.findRelatedTests &&
    !globalConfig.onlyChanged &&
    !globalConfig.onlyFailures &&
    !globalConfig.lastCommit &&
    !globalConfig.changedSince &&
    !globalConfig.shard
  );
}

/**
 * The documented operations that no checked answer with a success status reached, as
 * `METHOD /path (2xx statuses)`. `seenDir` holds the lines test/support/openapi-check.ts wrote:
 * `METHOD /template status`.
 */
export async function unexercisedOperations(document, seenDir) {
  const seen = new Set();
  for (const file of await readdir(seenDir)) {
    for (const line of (await readFile(path.join(seenDir, file), 'utf8')).split('\n')) {
      if (line) seen.add(line);
    }
  }
  const missing = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const successes = Object.keys(operation.responses).filter((s) => /^2\d\d$/.test(s));
      const hit = successes.filter((s) => seen.has(`${method.toUpperCase()} ${template} ${s}`));
      if (hit.length < successes.length) {
        const absent = successes.filter((s) => !hit.includes(s));
        missing.push(`${method.toUpperCase()} ${template} (${absent.join(', ')})`);
      }
    }
  }
  return missing;
}

/** Fails a whole run in which a documented operation was never answered with each success status. */
export async function checkOperationCoverage(globalConfig, projectConfig) {
  const seenDir = process.env.WF_OPENAPI_SEEN_DIR;
  if (!seenDir) return;
  try {
    if (!isWholeRun(globalConfig, projectConfig)) return;
    const document = JSON.parse(
      await readFile(new URL('../../client/openapi.json', import.meta.url), 'utf8'),
    );
    const missing = await unexercisedOperations(document, seenDir);
    if (missing.length > 0) {
      throw new Error(
        'OpenAPI: documented operations that no e2e test received a checked success answer from ' +
          `(status in brackets): ${missing.join('; ')}`,
      );
    }
  } finally {
    await rm(seenDir, { recursive: true, force: true });
  }
}
