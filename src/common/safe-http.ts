import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { timerDelay } from './timers';

/**
 * Outbound HTTP(S) for the `http` task handler and webhook deliveries, safe against SSRF: unless private
 * networks are allowed, loopback, private, link-local (cloud metadata) and other non-public addresses
 * are refused. The check runs inside the socket's own DNS lookup, on the address actually connected to,
 * so a name that resolves differently on a second lookup (DNS rebinding) cannot slip through. Redirects
 * are never followed.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return true;
}

export class OutboundRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'blocked' | 'timeout' | 'network' | 'too-large' | 'aborted' | 'invalid-url',
  ) {
    super(message);
  }
}

export interface SafeRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
  /** 'truncate' keeps the first maxResponseBytes; 'error' fails the request. */
  onOversize: 'truncate' | 'error';
  allowPrivateNetworks: boolean;
  /** Extra CA certificates (PEM) to trust besides the system's and NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer | Array<string | Buffer>;
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list: LookupAddress[] = addresses;
      const usable = allowPrivate ? list : list.filter((a) => !isPrivateAddress(a.address));
      if (usable.length === 0) {
        const shown = list.map((a) => a.address).join(', ');
        const e = new OutboundRequestError(
          `refusing to connect to ${hostname} (${shown}): private or reserved address`,
          'blocked',
        );
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      }
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

export function safeRequest(req: SafeRequest): Promise<SafeResponse> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.reject(new OutboundRequestError(`invalid URL: ${req.url}`, 'invalid-url'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(
      new OutboundRequestError('only http and https URLs are allowed', 'invalid-url'),
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal skips DNS, so it is checked here; names are checked inside the socket's lookup.
  if (isIP(host) && !req.allowPrivateNetworks && isPrivateAddress(host)) {
    return Promise.reject(
      new OutboundRequestError(
        `refusing to connect to ${host}: private or reserved address`,
        'blocked',
      ),
    );
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<SafeResponse>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const request = transport.request(
      url,
      {
        method: req.method ?? 'GET',
        headers: req.headers,
        lookup: guardedLookup(req.allowPrivateNetworks),
        signal: req.signal,
        agent: false,
        ...(req.ca ? { ca: req.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          size += chunk.length;
          if (size > req.maxResponseBytes) {
            if (req.onOversize === 'error') {
              res.destroy();
              finish(() =>
                reject(
                  new OutboundRequestError(
                    `response body exceeds ${req.maxResponseBytes} bytes`,
                    'too-large',
                  ),
                ),
              );
              return;
            }
            chunks.push(chunk.subarray(0, chunk.length - (size - req.maxResponseBytes)));
            truncated = true;
            res.destroy();
            finishWith();
            return;
          }
          chunks.push(chunk);
        });
        const finishWith = () =>
          finish(() => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) {
              if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
            }
            resolve({
              status: res.statusCode ?? 0,
              headers,
              body: Buffer.concat(chunks),
              truncated,
            });
          });
        res.on('end', finishWith);
        res.on('error', (err) =>
          finish(() => reject(new OutboundRequestError(err.message, 'network'))),
        );
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(() =>
        reject(new OutboundRequestError(`no answer within ${req.timeoutMs} ms`, 'timeout')),
      );
    }, timerDelay(req.timeoutMs));
    request.on('error', (err) => {
      finish(() => {
        if (err instanceof OutboundRequestError) return reject(err);
        if (req.signal?.aborted)
          return reject(new OutboundRequestError('request aborted', 'aborted'));
        reject(new OutboundRequestError(err.message, 'network'));
      });
    });
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}
