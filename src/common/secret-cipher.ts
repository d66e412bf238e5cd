import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (webhook secrets, stored answers of idempotent requests that hold a secret), under
 * ENCRYPTION_KEY. With a key, a stored secret reads `enc:v1:<key id>:<iv>:<ciphertext><tag>`
 * (base64url parts): AES-256-GCM with a random 96-bit IV, the owning row's identity (a webhook's id)
 * as additional authenticated data, so a ciphertext copied onto another row does not decrypt. The key
 * id (the first 8 hex digits of the key's SHA-256) says which key wrote a row, so that former keys can
 * still read it during a rotation. A stored value without the `enc:` prefix is plain text (a
 * `whsec_...` secret), written before a key was configured or while none is.
 */
export const ENCRYPTED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a cipher's values are, in the words of its errors. */
export interface SecretKind {
  /** The value, as a message's subject: `the webhook secret`. */
  subject: string;
  /** The row a value belongs to: `this webhook`. */
  owner: string;
  /** What the operator does about a value that does not decrypt with its key: `re-create the webhook`. */
  remedy: string;
}

export const WEBHOOK_SECRET: SecretKind = {
  subject: 'the webhook secret',
  owner: 'this webhook',
  remedy: 're-create the webhook',
};

/** A stored secret that no configured key can decrypt. The message is safe to show a tenant. */
export class SecretUnreadableError extends Error {
  constructor(
    readonly keyId: string,
    readonly reason: 'unknown-key' | 'corrupt',
    private readonly kind: SecretKind = WEBHOOK_SECRET,
  ) {
    super(
      reason === 'unknown-key'
        ? `${kind.subject} cannot be decrypted: it was encrypted with a key this server no longer has`
        : `${kind.subject} cannot be decrypted: the stored value is damaged or was not written for ${kind.owner}`,
    );
    this.name = 'SecretUnreadableError';
  }

  /** What the operator can do about it (logs only). */
  get operatorHint(): string {
    return this.reason === 'unknown-key'
      ? `add the key with id ${this.keyId} to ENCRYPTION_KEY_PREVIOUS`
      : `the row does not decrypt with the key with id ${this.keyId}: ${this.kind.remedy}`;
  }
}

export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class SecretCipher {
  private readonly keys = new Map<string, Buffer>();
  /** Id of the key new values are written with; undefined stores plain text. */
  readonly currentKeyId: string | undefined;

  constructor(
    current: Buffer | undefined,
    previous: readonly Buffer[] = [],
    private readonly kind: SecretKind = WEBHOOK_SECRET,
  ) {
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

  /** The stored form of `plain` for the row `id`: encrypted with the current key, if any. */
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
    if (!key) throw new SecretUnreadableError(keyId, 'unknown-key', this.kind);
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) {
      throw new SecretUnreadableError(keyId, 'corrupt', this.kind);
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
      throw new SecretUnreadableError(keyId, 'corrupt', this.kind);
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
