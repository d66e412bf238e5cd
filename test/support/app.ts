import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/bootstrap';
import { createPinoLogger } from '../../src/common/logger';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { fileDatabaseUrl } from './database';
import { checkedAgent } from './openapi-check';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** supertest bound to the running server; every answer is checked against the OpenAPI document. */
  http: TestAgent;
  baseUrl: string;
  databaseUrl: string;
  /** Runs SQL against the app's database (for assertions only, never to arrange state). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Starts the real application (same middleware, guards and filters as `main.ts`) on a loopback port,
 * against this test file's database unless `databaseUrl` is given. `env` overrides configuration the
 * way environment variables would. `imports` adds Nest modules, as an embedding application would
 * (e.g. a module whose providers carry @TaskHandler).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: { databaseUrl?: string; imports?: DynamicModule['imports'] } = {},
): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? (await fileDatabaseUrl());
  const config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_MAX: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    EXECUTOR_POLL_INTERVAL_MS: '200',
    ...env,
    DATABASE_URL: databaseUrl,
  });
  const app = await createApp(config, createPinoLogger(config.logLevel), options.imports);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = new Client({ connectionString: databaseUrl });
  // A test may take the database away; a broken assertion connection must not
  // crash the test file. Queries on it still fail.
  client.on('error', () => undefined);
  await client.connect();
  return {
    app,
    config,
    http: checkedAgent(baseUrl),
    baseUrl,
    databaseUrl,
    sql: async <T>(text: string, params?: unknown[]) =>
      (await client.query(text, params)).rows as T[],
    close: async () => {
      await client.end();
      await app.close();
    },
  };
}
