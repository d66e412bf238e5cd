import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest. With a key, a stored secret reads
 * `enc:v1:<key id>:<iv>:<ciphertext><tag>` (base64url parts): AES-256-GCM with a random 96-bit IV,
 * the webhook id as additional authenticated data, so a ciphertext copied onto another webhook's row
 * does not decrypt. The key id (the first 8 hex digits of the key's SHA-256) says which key wrote a
 * row, so that former keys can still read it during a rotation. A stored value without the `enc:`
 * prefix is a plain secret (`whsec_...`), written before a key was configured or while none is.
 */
export const ENCRYPTED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored secret that no configured key can decrypt. The message is safe to show a tenant. */
export class SecretUnreadableError extends Error {
  constructor(
    readonly keyId: string,
    readonly reason: 'unknown-key' | 'corrupt',
  ) {
    super(
      reason === 'unknown-key'
        ? 'the webhook secret cannot be decrypted: it was encrypted with a key this server no longer has'
        : 'the webhook secret cannot be decrypted: the stored value is damaged or was not written for this webhook',
    );
    this.name = 'SecretUnreadableError';
  }

  /** What the operator can do about it (logs only). */
  get operatorHint(): string {
    return this.reason === 'unknown-key'
      ? `add the key with id ${this.keyId} to ENCRYPTION_KEY_PREVIOUS`
      : `the row does not decrypt with the key with id ${this.keyId}: re-create the webhook`;
  }
}

export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class SecretCipher {
  private readonly keys = new Map<string, Buffer>();
  /** Id of the key new values are written with; undefined stores plain text. */
  readonly currentKeyId: string | undefined;

  constructor(current: Buffer | undefined, previous: readonly Buffer[] = []) {
    for (const key of previous) this.keys.set(encryptionKeyId(key), key);
    if (current) {
      this.currentKeyId = encryptionKeyId(current);
      this.keys.set(this.currentKeyId, current);
    }
  }

  /** Whether any key is configured (encryption on, or at least a rotation away from it). */
  get hasKeys(): boolean {
    return this.keys.size > 0;
  }

  /** The stored form of `plain` for the webhook `id`: encrypted with the current key, if any. */
  seal(id: string, plain: string): string {
    if (this.currentKeyId === undefined) return plain;
    const key = this.keys.get(this.currentKeyId)!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${ENCRYPTED_PREFIX}${this.currentKeyId}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  /** The plain secret of a stored value; throws SecretUnreadableError when no key can read it. */
  open(id: string, stored: string): string {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) return stored;
    const [keyId = '', ivText = '', bodyText = ''] = stored
      .slice(ENCRYPTED_PREFIX.length)
      .split(':');
    const key = this.keys.get(keyId);
    if (!key) throw new SecretUnreadableError(keyId, 'unknown-key');
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) {
      throw new SecretUnreadableError(keyId, 'corrupt');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(id, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return plain.toString('utf8');
    } catch {
      throw new SecretUnreadableError(keyId, 'corrupt');
    }
  }

  /** Whether a stored value is already in the form `seal` would write now. */
  isCurrent(stored: string): boolean {
    if (this.currentKeyId === undefined) return !stored.startsWith(ENCRYPTED_PREFIX);
    return stored.startsWith(`${ENCRYPTED_PREFIX}${this.currentKeyId}:`);
  }

  /** The prefix every current value starts with; undefined when current values are plain text. */
  get currentPrefix(): string | undefined {
    return this.currentKeyId === undefined ? undefined : `${ENCRYPTED_PREFIX}${this.currentKeyId}:`;
  }
}
