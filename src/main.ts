// First: tracing's instrumentations must patch http, express and pg before they are first loaded.
import { tracing } from './tracing/register';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createPinoLogger } from './common/logger';
import { isDatabaseUnavailable } from './common/errors';
import { ConfigError, loadConfig, type AppConfig } from './config/app-config';
import {
  EmbeddedStartError,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from './database/embedded-postgres';
import { runMigrations } from './database/migrations';
import { createApp } from './bootstrap';
import {
  describeExtension,
  ExtensionError,
  loadExtensions,
  type LoadedExtension,
} from './extensions';

const SHUTDOWN_TIMEOUT_MS = 30_000;

/**
 * A start-up failure the operator can fix (the database cannot be started or reached, an extension
 * cannot be loaded).
 */
class StartError extends Error {}

function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createPinoLogger(config.logLevel);
  const traced = tracing();
  if (traced) logger.info(traced.description);
  // Before anything starts: an extension that cannot load stops the process with nothing to undo.
  let extensions: LoadedExtension[];
  try {
    extensions = loadExtensions(config.extensionModules);
  } catch (err) {
    if (err instanceof ExtensionError) throw new StartError(`failed to start: ${err.message}`);
    throw err;
  }
  if (extensions.length > 0) {
    logger.info(
      { extensions: extensions.map(({ name, file }) => ({ name, file })) },
      `loaded ${extensions.length} extension(s): ${extensions.map(describeExtension).join(', ')}`,
    );
  }

  const running: { app?: NestExpressApplication; embedded?: EmbeddedDatabase } = {};
  // Installed before anything starts, so that a signal during start-up still stops what has started.
  // Order on shutdown: drain HTTP and close the app (requests in flight still have their database),
  // then stop the embedded PostgreSQL, then export the last spans (5 s at most). A second signal
  // forces the exit.
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      logger.warn(`${signal} received again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`${signal} received: draining and shutting down`);
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await running.app?.close();
      await running.embedded?.stop();
      await traced?.shutdown();
      logger.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // A closed terminal: without a handler Node would end at once, leaving the embedded server (in a
  // process group of its own) running.
  process.on('SIGHUP', () => void shutdown('SIGHUP'));

  if (!config.databaseUrl) {
    logger.info(
      'DATABASE_URL is not set: starting an embedded PostgreSQL (data in ./.data/postgres)',
    );
    const embedded = await startEmbeddedPostgres('.data/postgres', (m) =>
      logger.debug({ postgres: m }),
    ).catch((err: unknown) => {
      if (!(err instanceof EmbeddedStartError)) throw err;
      const asRoot = process.getuid?.() === 0 ? ', or run the service as a normal user' : '';
      throw new StartError(
        `failed to start the embedded PostgreSQL (DATABASE_URL is not set): ${err.message}. ` +
          `Set DATABASE_URL to a PostgreSQL server you run${asRoot}.`,
      );
    });
    if (embedded.relocatedFrom) {
      logger.warn(
        `running as root and the "postgres" user cannot enter ${embedded.relocatedFrom}: ` +
          `the embedded PostgreSQL keeps its data in ${embedded.dataDir} instead`,
      );
    }
    running.embedded = embedded;
    config = { ...config, databaseUrl: embedded.url };
  }
  const databaseUrl = config.databaseUrl!;
  const applied = await runMigrations(databaseUrl).catch((err: unknown) => {
    if (!isDatabaseUnavailable(err)) throw err;
    const e = err as { code?: string; message?: string };
    throw new StartError(
      `failed to start: cannot reach the database at ${describeDatabase(databaseUrl)} ` +
        `(${[e.code, e.message].filter(Boolean).join(' ')}). Check DATABASE_URL and that ` +
        'PostgreSQL is running and accepts this user.',
    );
  });
  logger.info(
    { migrations: applied },
    applied.length ? `applied ${applied.length} migration(s)` : 'database schema is up to date',
  );
  if (!config.adminToken) {
    logger.warn(
      'ADMIN_TOKEN is not set: anyone who can reach the service can create workspaces, and a ' +
        'workspace without an active key accepts a first key without credentials',
    );
  }

  const app = await createApp(
    config,
    logger,
    extensions.map((e) => e.module),
  );
  running.app = app;
  if (stopping) return;
  await app.listen(config.port);
  logger.info(
    `listening on http://0.0.0.0:${config.port} (console at /console, API docs at /docs, OpenAPI at /openapi.json); ` +
      `database ${describeDatabase(databaseUrl)}${running.embedded ? ' (embedded)' : ''}; ` +
      `executor ${config.executor.enabled ? `on, concurrency ${config.executor.concurrency}` : 'off'}; ` +
      `rate-limit counters ${config.redisUrl ? 'in Redis' : 'in memory'}`,
  );
}

main().catch((err: unknown) => {
  // One line, no stack, for what the operator can fix: what to do, not where in the code it failed.
  if (err instanceof StartError) console.error(err.message.replace(/\s+/g, ' '));
  else console.error('failed to start:', err);
  process.exit(1);
});
