import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  deliveryHeaders,
  generateWebhookSecret,
  signBodyHex,
  standardWebhooksKey,
  standardWebhooksSignature,
} from './signing';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3vUN6HdpeTg=';
const BODY = '{"event": "workflow.completed", "data": {"status": "COMPLETED"}}';

describe('webhook secrets', () => {
  it('are whsec_ followed by the base64 of 32 random bytes, different every time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('give the Standard Webhooks key as the decoded bytes after whsec_', () => {
    expect(standardWebhooksKey(SECRET)).toEqual(
      Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3vUN6HdpeTg=', 'base64'),
    );
  });
});

describe('X-Webhook-Signature', () => {
  it('is the hex HMAC-SHA256 of the raw body keyed with the whole secret string', () => {
    const expected = createHmac('sha256', SECRET).update(BODY).digest('hex');
    expect(signBodyHex(SECRET, BODY)).toBe(expected);
    expect(signBodyHex(SECRET, BODY)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when a single byte of the body changes', () => {
    expect(signBodyHex(SECRET, BODY)).not.toBe(signBodyHex(SECRET, BODY.replace('COMPLETED', 'C')));
  });
});

describe('Standard Webhooks signature', () => {
  it('matches what the standardwebhooks library computes', () => {
    const at = new Date(1614265330_000);
    const ours = standardWebhooksSignature(
      SECRET,
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      BODY,
    );
    expect(ours).toBe(new Webhook(SECRET).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', at, BODY));
  });
});

describe('deliveryHeaders', () => {
  const now = new Date();
  const headers = deliveryHeaders({
    secret: SECRET,
    webhookId: '6f1d3c9e-6b1a-4c1e-9d55-0c9f6c1b2a3d',
    messageId: 'msg_0123456789abcdef0123456789abcdef',
    event: 'workflow.completed',
    body: BODY,
    now,
  });

  it('carries the interface headers: content type, hex signature, event and registration id', () => {
    expect(headers['content-type']).toBe('application/json');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(headers['x-webhook-event']).toBe('workflow.completed');
    expect(headers['x-webhook-id']).toBe('6f1d3c9e-6b1a-4c1e-9d55-0c9f6c1b2a3d');
    const expected = Buffer.from(createHmac('sha256', SECRET).update(BODY).digest('hex'));
    expect(timingSafeEqual(Buffer.from(headers['x-webhook-signature']), expected)).toBe(true);
  });

  it('carries Standard Webhooks headers that the standardwebhooks library accepts', () => {
    expect(headers['webhook-id']).toBe('msg_0123456789abcdef0123456789abcdef');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('is rejected by the standardwebhooks library when the body was altered', () => {
    expect(() =>
      new Webhook(SECRET).verify(BODY.replace('COMPLETED', 'FAILED'), headers),
    ).toThrow();
  });

  it('is rejected by the standardwebhooks library under another secret', () => {
    expect(() => new Webhook(generateWebhookSecret()).verify(BODY, headers)).toThrow();
  });
});
