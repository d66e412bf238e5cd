import { isIP } from 'node:net';
import { isPrivateAddress } from '../common/safe-http';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Why a webhook URL is unacceptable, or undefined when it is fine. Checks the form only: an absolute
 * `https:` URL with a host and without credentials (a secret in the URL would show up in logs and in
 * the webhook list). Whether the host is reachable and public is decided at delivery time, on the
 * address actually connected to.
 */
export function webhookUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'url must be a string';
  if (value.length === 0) return 'url must not be empty';
  if (value.length > MAX_WEBHOOK_URL_LENGTH) {
    return `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  }
  if (value.trim() !== value || /\s/.test(value)) return 'url must not contain whitespace';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be a valid absolute URL';
  }
  if (url.protocol !== 'https:') return 'url must use https';
  if (url.hostname === '') return 'url must have a host';
  if (url.username !== '' || url.password !== '') return 'url must not contain credentials';
  return undefined;
}

/**
 * An IP literal in a private or reserved range, refused at registration while private networks are
 * not allowed (names are checked at delivery time, when they are resolved).
 */
export function isPrivateIpLiteralUrl(value: string): boolean {
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isPrivateAddress(host);
}
