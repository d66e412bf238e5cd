import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import { sendError } from '../common/error-response';

/**
 * Where `npm run build` puts the console (console/vite.config.mts): dist/console-app at the package's
 * root, reached the same way from src/console (tests) and dist/console (the built service).
 */
export const CONSOLE_DIR = join(__dirname, '..', '..', 'dist', 'console-app');

/**
 * The console's pages hold data from runs, models and reviewers: the policy allows the console's own
 * scripts and styles only (no inline script, no other origin), so that even a rendering mistake could
 * not run a hostile string as code; and no other site may frame it (clickjacking of the approve key).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

function secure(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

/** Every path of the console app; the app routes on the client. */
const CONSOLE_PAGES = /^\/console(?:\/.*)?$/;

/**
 * Serves the console at /console, public like the probes (its API calls authenticate with the session
 * cookie): hashed assets cached for a year, and the one HTML page, never cached, for every other path
 * under /console so that deep links work. Without a build (a checkout that only ran `tsc`), /console
 * answers 503 saying how to build it, and the API is unaffected.
 */
export function mountConsole(app: Express, dir: string = CONSOLE_DIR): 'served' | 'not built' {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    app.get(CONSOLE_PAGES, (_req: Request, res: Response) =>
      sendError(res, {
        status: 503,
        code: 'CONSOLE_NOT_BUILT',
        message: 'the console is not built: run npm run build',
      }),
    );
    return 'not built';
  }
  const index = readFileSync(indexFile);
  // The page's ETag, made once (the app's answers get none, see bootstrap.ts): a browser revalidating
  // the page (no-cache) gets 304 from res.send until a new build changes it.
  const indexTag = `"${createHash('sha1').update(index).digest('base64url')}"`;
  app.use(
    '/console/assets',
    (_req: Request, res: Response, next: () => void) => {
      secure(res);
      next();
    },
    express.static(join(dir, 'assets'), {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      immutable: true,
      maxAge: '365d',
    }),
    (_req: Request, res: Response) =>
      sendError(res, { status: 404, code: 'NOT_FOUND', message: 'no such console file' }),
  );
  app.get(CONSOLE_PAGES, (_req: Request, res: Response) => {
    secure(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', indexTag);
    res.type('html').send(index);
  });
  return 'served';
}
