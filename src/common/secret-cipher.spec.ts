import { randomBytes, randomUUID } from 'node:crypto';
import { encryptionKeyId, SecretCipher, SecretUnreadableError } from './secret-cipher';

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
/** A secret of the webhooks' form (`whsec_` + base64 of 32 random bytes). */
const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function unreadable(fn: () => unknown): SecretUnreadableError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SecretUnreadableError) return err;
    throw err;
  }
  throw new Error('expected a SecretUnreadableError');
}

describe('SecretCipher', () => {
  const id = randomUUID();

  it.each([
    generateWebhookSecret(),
    generateWebhookSecret(),
    'whsec_short',
    'ünïcødé secret 😀',
    '',
  ])('round-trips %j under a key, storing no trace of it', (plain) => {
    const cipher = new SecretCipher(KEY_A);
    const stored = cipher.seal(id, plain);
    expect(stored).toMatch(
      new RegExp(`^enc:v1:${encryptionKeyId(KEY_A)}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`),
    );
    if (plain.length > 6) {
      expect(stored).not.toContain(plain.slice(6));
      expect(stored).not.toContain(Buffer.from(plain.slice(6)).toString('base64url'));
    }
    expect(cipher.open(id, stored)).toBe(plain);
    expect(cipher.isCurrent(stored)).toBe(true);
  });

  it('uses a fresh IV each time', () => {
    const cipher = new SecretCipher(KEY_A);
    const plain = generateWebhookSecret();
    const values = new Set(Array.from({ length: 20 }, () => cipher.seal(id, plain)));
    expect(values.size).toBe(20);
  });

  it('stores plain text without a key, and reads plain text with or without one', () => {
    const plain = generateWebhookSecret();
    const none = new SecretCipher(undefined);
    expect(none.seal(id, plain)).toBe(plain);
    expect(none.open(id, plain)).toBe(plain);
    expect(none.isCurrent(plain)).toBe(true);
    const keyed = new SecretCipher(KEY_A);
    expect(keyed.open(id, plain)).toBe(plain);
    expect(keyed.isCurrent(plain)).toBe(false);
  });

  it('reads values of a previous key, which are no longer current', () => {
    const old = new SecretCipher(KEY_A).seal(id, 'whsec_old');
    const rotated = new SecretCipher(KEY_B, [KEY_A]);
    expect(rotated.open(id, old)).toBe('whsec_old');
    expect(rotated.isCurrent(old)).toBe(false);
    const resealed = rotated.seal(id, rotated.open(id, old));
    expect(resealed.startsWith(`enc:v1:${encryptionKeyId(KEY_B)}:`)).toBe(true);
    expect(rotated.isCurrent(resealed)).toBe(true);
  });

  it('turns encryption off with only previous keys: reads them, writes plain text', () => {
    const old = new SecretCipher(KEY_A).seal(id, 'whsec_old');
    const off = new SecretCipher(undefined, [KEY_A]);
    expect(off.hasKeys).toBe(true);
    expect(off.open(id, old)).toBe('whsec_old');
    expect(off.isCurrent(old)).toBe(false);
    expect(off.seal(id, 'whsec_old')).toBe('whsec_old');
  });

  it('refuses a value written with a key it does not have, naming the key id', () => {
    const stored = new SecretCipher(KEY_A).seal(id, 'whsec_x');
    const err = unreadable(() => new SecretCipher(KEY_B).open(id, stored));
    expect(err.reason).toBe('unknown-key');
    expect(err.keyId).toBe(encryptionKeyId(KEY_A));
    expect(err.message).toBe(
      'the webhook secret cannot be decrypted: it was encrypted with a key this server no longer has',
    );
    expect(err.operatorHint).toContain(encryptionKeyId(KEY_A));
    expect(err.message).not.toContain('whsec_x');
  });

  it.each<[string, (stored: string) => [string, string]]>([
    ['another webhook id (a value copied between rows)', (s) => [randomUUID(), s]],
    [
      'a flipped ciphertext byte',
      (s) => [id, s.slice(0, -3) + (s.at(-3) === 'A' ? 'B' : 'A') + s.slice(-2)],
    ],
    ['a truncated value', (s) => [id, s.slice(0, s.lastIndexOf(':') + 5)]],
    ['a damaged IV', (s) => [id, s.replace(/:([A-Za-z0-9_-]{16}):/, ':AAAA:')]],
    ['missing parts', () => [id, `enc:v1:${encryptionKeyId(KEY_A)}`]],
  ])('refuses %s as corrupt', (_case, tamper) => {
    const cipher = new SecretCipher(KEY_A);
    const [otherId, stored] = tamper(cipher.seal(id, generateWebhookSecret()));
    expect(unreadable(() => cipher.open(otherId, stored)).reason).toBe('corrupt');
  });

  it('derives a short key id that differs between keys and reveals nothing of the key', () => {
    expect(encryptionKeyId(KEY_A)).toMatch(/^[0-9a-f]{8}$/);
    expect(encryptionKeyId(KEY_A)).not.toBe(encryptionKeyId(KEY_B));
    expect(KEY_A.toString('hex')).not.toContain(encryptionKeyId(KEY_A));
  });
});
