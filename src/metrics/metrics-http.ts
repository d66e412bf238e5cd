import { createServer, type Server, type ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Metrics } from './metrics';

/** The `route` label of a request no route matched (unknown paths, bodies refused before routing). */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Observes every request's duration once its answer is sent, labelled with the route template that
 * matched (`/v1/workflow-runs/:id`), never the raw URL, so the label's values are the service's routes.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.once('finish', () => {
      const path = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof path === 'string' ? `${req.baseUrl}${path}` : UNMATCHED_ROUTE;
      metrics.httpRequest(req.method, route, res.statusCode, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** GET /metrics: the text exposition. Collecting never touches the database. */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    metrics.scrape().then(({ contentType, body }) => {
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    }, next);
  };
}

/**
 * The metrics on a port of their own (METRICS_PORT), so that the API's port need not be reachable by
 * the scraper, nor /metrics by the API's clients. Serves `GET /metrics` only.
 */
export function metricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics')
      return answerError(res, 404, 'NOT_FOUND', 'only /metrics is served here');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answerError(res, 405, 'METHOD_NOT_ALLOWED', 'only GET and HEAD are allowed');
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => answerError(res, 500, 'INTERNAL_ERROR', 'collecting metrics failed'),
    );
  });
}

/** The error envelope, on the metrics port's plain HTTP server. */
function answerError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ success: false, error: { code, message } });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(body);
}
