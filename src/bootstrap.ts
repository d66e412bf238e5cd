import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import { SwaggerModule } from '@nestjs/swagger';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module';
import {
  accessLog,
  answerClientErrors,
  answerInFull,
  jsonBody,
  requestId,
} from './common/http-middleware';
import { PrebuiltPrototypesAdapter } from './common/express-adapter';
import { PinoNestLogger } from './common/logger';
import { declaredRoutes, takesKey } from './common/route-table';
import { mountConsole } from './console/console-static';
import type { AppConfig } from './config/app-config';
import { Metrics } from './metrics/metrics';
import { httpMetrics, metricsHandler } from './metrics/metrics-http';
import { buildOpenApiDocument } from './openapi';
import { StepTypeRegistry } from './steps/step-type.registry';

/**
 * Builds the HTTP application for a resolved configuration (the database URL known and migrated). Shared
 * by `main.ts` and the tests, so that tests exercise the same middleware, filters and guards.
 */
export async function createApp(
  config: AppConfig,
  logger: Pino,
  extraImports: DynamicModule['imports'] = [],
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, extraImports),
    new PrebuiltPrototypesAdapter(),
    {
      bodyParser: false,
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    },
  );
  app.disable('x-powered-by');
  // No ETag on the API's answers (see answerInFull): Express hashes every body for one (SHA-1), which
  // cost GET one run about a tenth of its requests/s (README "Performance"). The console's page sets
  // its own (console-static.ts).
  app.set('etag', false);
  // README "Scopes": a route that takes a key but declares no scope (an extension's controller, say)
  // is open only to keys holding every scope; say so once rather than leave it to a puzzled 403.
  const undeclared = declaredRoutes(app).filter((r) => takesKey(r) && r.scope === undefined);
  if (undeclared.length > 0) {
    logger.warn(
      { routes: undeclared.map((r) => `${r.method} ${r.path} (${r.handler})`) },
      'routes that declare no scope (@RequiresScope or @NoScope): only API keys holding every ' +
        'scope may call them',
    );
  }
  // req.ip, used by the per-address rate limit and the access log: the TCP peer unless TRUST_PROXY
  // names the proxies whose X-Forwarded-For may be believed.
  app.set('trust proxy', config.trustProxy);
  answerClientErrors(app.getHttpServer());
  app.use(requestId());
  app.use(accessLog(logger));
  const express: Express = app.getHttpAdapter().getInstance();
  const metrics = app.get(Metrics);
  if (metrics.enabled) {
    app.use(httpMetrics(metrics));
    // Public like /live, before the API's guards; on METRICS_PORT instead when that is set.
    if (config.metrics.port === undefined) {
      express.get('/metrics', metricsHandler(metrics));
    }
  }
  // The console's pages and assets: public like the probes, before the API's guards.
  if (mountConsole(express) === 'not built') {
    logger.warn('the console is not built (run npm run build): /console answers 503');
  }
  app.use(answerInFull());
  app.use(jsonBody());

  const document = buildOpenApiDocument(app, app.get(StepTypeRegistry).types());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
  return app;
}
