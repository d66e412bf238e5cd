import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets and signatures (design §8). One secret serves both signature schemes:
 * - `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the secret string as written
 *   (`whsec_...`), as the interface specifies;
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): base64 HMAC-SHA256 of
 *   `${id}.${timestamp}.${body}`, keyed with the base64-decoded part after `whsec_`, so that receivers
 *   can verify with the official `standardwebhooks` libraries.
 */
export const SECRET_PREFIX = 'whsec_';

/** `whsec_` followed by the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Hex HMAC-SHA256 of the raw body keyed with the whole secret string (`X-Webhook-Signature`). */
export function signBodyHex(secret: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The Standard Webhooks key: the bytes the base64 after `whsec_` encodes. */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "${messageId}.${timestamp}.${body}">` (`webhook-signature`). */
export function standardWebhooksSignature(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export interface DeliveryHeadersInput {
  secret: string;
  webhookId: string;
  messageId: string;
  event: string;
  body: string;
  /** The attempt's time; each attempt is signed afresh so that receivers can reject replays. */
  now?: Date;
}

/** Every header of one delivery attempt: the interface's four plus the Standard Webhooks three. */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(input.body, 'utf8')),
    'user-agent': 'workflow-orchestrator-webhooks/1',
    'x-webhook-signature': signBodyHex(input.secret, input.body),
    'x-webhook-event': input.event,
    'x-webhook-id': input.webhookId,
    'webhook-id': input.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhooksSignature(
      input.secret,
      input.messageId,
      timestamp,
      input.body,
    ),
  };
}
