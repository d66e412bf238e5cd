import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

/** A self-signed certificate for `localhost` and 127.0.0.1, made with the openssl command line. */
export interface TestCertificate {
  dir: string;
  certFile: string;
  cert: string;
  key: string;
}

export function createSelfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'wf-webhook-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return {
    dir,
    certFile,
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
  };
}

/** What a route answers to a request: a status and body, or no answer at all. */
export type Reply = { status: number; body?: string } | 'hang';

/** Chooses the reply from the route's request count (1-based) and the request's headers. */
export type Replier = (n: number, headers: IncomingHttpHeaders) => Reply;

export interface ReceivedDelivery {
  path: string;
  /** When the request had fully arrived (ms since epoch). */
  at: number;
  headers: IncomingHttpHeaders;
  /** The raw body as received, before any parsing. */
  body: string;
  /** X-Webhook-Signature equals the hex HMAC-SHA256 of the raw body (constant-time comparison). */
  hmacValid: boolean;
  /** The standardwebhooks library accepted webhook-id, webhook-timestamp and webhook-signature. */
  standardValid: boolean;
  replied: Reply;
}

interface Route {
  secret?: string;
  reply: Replier;
  count: number;
}

/**
 * An HTTPS webhook receiver on 127.0.0.1 for the e2e tests. Each route (a path) knows the secret of the
 * webhook pointed at it and checks every request both ways a real receiver would: the plain HMAC header
 * and, with the `standardwebhooks` package, the Standard Webhooks headers.
 */
export class HttpsReceiver {
  private readonly routes = new Map<string, Route>();
  private readonly log: ReceivedDelivery[] = [];
  /** Per path: requests open now (arrived, connection not closed) and the most ever open at once. */
  private readonly open = new Map<string, { now: number; peak: number }>();
  private server?: Server;
  port = 0;

  constructor(readonly certificate: TestCertificate) {}

  async start(): Promise<this> {
    const server = createServer(
      { cert: this.certificate.cert, key: this.certificate.key },
      (req, res) => {
        const open = this.open.get(req.url ?? '') ?? { now: 0, peak: 0 };
        this.open.set(req.url ?? '', open);
        open.now += 1;
        open.peak = Math.max(open.peak, open.now);
        res.on('close', () => (open.now -= 1));
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const route = this.routes.get(req.url ?? '');
          const reply: Reply = route ? route.reply(++route.count, req.headers) : { status: 404 };
          this.log.push({
            path: req.url ?? '',
            at: Date.now(),
            headers: req.headers,
            body,
            hmacValid: route?.secret ? checkHmac(route.secret, body, req.headers) : false,
            standardValid: route?.secret ? checkStandard(route.secret, body, req.headers) : false,
            replied: reply,
          });
          if (reply === 'hang') return;
          res.writeHead(reply.status, { 'content-type': 'text/plain' });
          res.end(reply.body ?? '');
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Routes `path` (answers 200 unless `reply` says otherwise); returns the https URL of the route. */
  route(pathname: string, reply: Replier = () => ({ status: 200 }), host = '127.0.0.1'): string {
    this.routes.set(pathname, { reply, count: 0 });
    return `https://${host}:${this.port}${pathname}`;
  }

  /** The secret of the webhook registered for `path`, from its creation answer. */
  setSecret(pathname: string, secret: string): void {
    const route = this.routes.get(pathname);
    if (!route) throw new Error(`no route ${pathname}`);
    route.secret = secret;
  }

  /** Requests received so far, oldest first, optionally only those for one path. */
  received(pathname?: string): ReceivedDelivery[] {
    return this.log.filter((d) => pathname === undefined || d.path === pathname);
  }

  /** The most requests to `path` that were open at once (a hanging route keeps them open). */
  peakOpen(pathname: string): number {
    return this.open.get(pathname)?.peak ?? 0;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(this.certificate.dir, { recursive: true, force: true });
  }
}

function checkHmac(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  const given = headers['x-webhook-signature'];
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function checkStandard(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  return new HttpsReceiver(createSelfSignedCertificate()).start();
}
