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
const BLOCKED_V4 = new BlockList();
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
  BLOCKED_V4.addSubnet(net, prefix, 'ipv4');
}
/**
 * IPv6 ranges refused outright. `::/96` (IPv4-compatible, deprecated) and the NAT64 prefixes reach
 * IPv4 hosts through a translator, which may well sit inside the private network, so they are refused
 * whatever IPv4 address they embed. IPv4-mapped (`::ffff:0:0/96`), IPv4-translated
 * (`::ffff:0:0:0/96`) and 6to4 (`2002::/16`) addresses are judged by the IPv4 address they embed
 * instead (see `embeddedIpv4`). Teredo (`2001::/32`) is refused too: its IPv4 address is obfuscated
 * and reached through a relay.
 */
const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo: a tunnel to an IPv4 host through a relay, the address obfuscated; no webhook needs it.
  ['2001::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED_V6.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (without a zone id), or undefined when it is not one. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address;
  const bytes: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (dotted) {
    tail = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}0:0`;
  }
  const [head, rest] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(rest);
  const missing = rest === undefined ? 0 : 8 - left.length - right.length;
  for (const g of [...left, ...Array<string>(missing).fill('0'), ...right]) {
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv4-mapped, IPv4-translated or 6to4 IPv6 address stands for. */
function embeddedIpv4(bytes: number[]): string | undefined {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const ffff = (at: number) => bytes[at] === 0xff && bytes[at + 1] === 0xff;
  if (zero(0, 10) && ffff(10)) return bytes.slice(12, 16).join('.');
  if (zero(0, 8) && ffff(8) && zero(10, 12)) return bytes.slice(12, 16).join('.');
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6).join('.');
  return undefined;
}

/** Whether an address is loopback, private, link-local, reserved or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return BLOCKED_V4.check(bare, 'ipv4');
  const bytes = family === 6 ? ipv6Bytes(bare) : undefined;
  if (!bytes) return true;
  const v4 = embeddedIpv4(bytes);
  if (v4 !== undefined) return BLOCKED_V4.check(v4, 'ipv4');
  return BLOCKED_V6.check(bare, 'ipv6');
}

/**
 * The message of a refused destination. It names the host as the caller wrote it and nothing it
 * resolved to: telling a tenant which internal address a name points at would map the private network
 * for them.
 */
export function destinationNotAllowed(host: string): string {
  return `refusing to connect to ${host}: destination not allowed`;
}

/** Connection errors by code, described without the address they carry in Node's own message. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EPIPE: 'connection closed',
};

export function networkErrorMessage(err: Error & { code?: string }): string {
  const known = err.code !== undefined ? NETWORK_ERRORS[err.code] : undefined;
  if (known) return `${known} (${err.code})`;
  // TLS and HTTP parser errors say what went wrong without an address; anything else might not.
  if (
    typeof err.code === 'string' &&
    /^(ERR_TLS|ERR_SSL|HPE_|CERT_|DEPTH_|UNABLE_|SELF_)/.test(err.code)
  ) {
    return err.message;
  }
  return err.code ? `connection failed (${err.code})` : 'connection failed';
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
        const e = new OutboundRequestError(destinationNotAllowed(hostname), 'blocked');
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
    return Promise.reject(new OutboundRequestError(destinationNotAllowed(url.hostname), 'blocked'));
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
          finish(() => reject(new OutboundRequestError(networkErrorMessage(err), 'network'))),
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
        reject(new OutboundRequestError(networkErrorMessage(err), 'network'));
      });
    });
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}
