import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ConflictError } from '../common/errors';
import {
  ENCRYPTED_PREFIX,
  SecretCipher,
  SecretUnreadableError,
  type SecretKind,
} from '../common/secret-cipher';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { isStoredStatus } from './idempotency-key';
import { IdempotencyRepository, type StoredHeaders } from './idempotency.repository';
import { KeyWriter } from './key-writer';
import type { SecretAnswer } from './secret-answer';

/** The headers of an answer that a replay carries besides its status and body. */
const REPLAYED_HEADERS = ['content-type', 'location'];

const STORED_ANSWER: SecretKind = {
  subject: 'the stored answer to this Idempotency-Key',
  owner: 'this key',
  remedy: 'the key works anew once it expires (IDEMPOTENCY_KEY_TTL_MS)',
};

/**
 * A request's key: where it is kept and who holds its claim. `secret` is the route's
 * `@SecretInAnswer`, set once the route is known (a claim made by the key lookup is made before).
 */
export interface Claim {
  scope: string;
  key: string;
  owner: string;
  secret?: SecretAnswer;
}

/**
 * What becomes of the answer to a request that holds its key's claim: stored when the response ends
 * (KeyWriter), encrypted or without its secret where the route says so, or the key given back.
 */
@Injectable()
export class AnswerCapture {
  private readonly logger = new Logger('Idempotency');
  private readonly cipher: SecretCipher;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly writer: KeyWriter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cipher = new SecretCipher(
      config.encryption.key,
      config.encryption.previousKeys,
      STORED_ANSWER,
    );
  }

  /**
   * Takes the answer as the response ends: queued to be stored (KeyWriter), or the key given back.
   * The response goes out at once; an identical request arriving before the answer is written waits
   * for it like for one in progress.
   */
  capture(res: Response, claim: Claim): void {
    const end = res.end;
    res.end = ((...args: Parameters<Response['end']>) => {
      res.end = end;
      this.settle(res, claim, args[0]);
      return end.apply(res, args);
    }) as Response['end'];
  }

  /** Gives the key back: the next request with it runs as a first one. */
  release(claim: Claim): void {
    const { scope, key, owner } = claim;
    this.keys
      .release(scope, key, owner)
      .catch((err: unknown) =>
        this.logger.warn(
          { err, scope, key },
          'an Idempotency-Key could not be given back; it stays claimed until ' +
            'IDEMPOTENCY_CLAIM_LEASE_MS has passed',
        ),
      );
  }

  /** The stored body as it was sent (decrypted), or 409 when it cannot be read any more. */
  open(claim: Claim, body: string): string {
    if (!body.startsWith(ENCRYPTED_PREFIX)) return body;
    try {
      return this.cipher.open(aad(claim), body);
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.logger.error({ keyId: err.keyId }, `${err.message}; ${err.operatorHint}`);
      throw new ConflictError(err.message);
    }
  }

  private settle(res: Response, claim: Claim, chunk: unknown): void {
    const { scope, key, owner, secret } = claim;
    const status = res.statusCode;
    // Set-Cookie is never stored: such an answer (a console sign-in) runs anew every time.
    if (!isStoredStatus(status) || res.hasHeader('set-cookie') || res.headersSent) {
      this.release(claim);
      return;
    }
    const text =
      typeof chunk === 'string'
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : '';
    let body = text;
    let secretWithheld = false;
    if (secret && status < 300) {
      if (secret.store === 'encrypt' && this.cipher.currentKeyId !== undefined) {
        body = this.cipher.seal(aad(claim), text);
      } else {
        body = withoutSecret(text, secret.field);
        secretWithheld = true;
      }
    }
    this.writer.answer({
      scope,
      key,
      owner,
      answer: { status, headers: replayedHeaders(res), body, secretWithheld },
    });
  }
}

/** The additional authenticated data of an encrypted answer: its row, so a copy elsewhere fails. */
function aad(claim: Claim): string {
  return `${claim.scope}\n${claim.key}`;
}

function replayedHeaders(res: Response): StoredHeaders {
  const headers: StoredHeaders = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** The stored form of an answer whose secret is not stored: the answer without it. */
function withoutSecret(text: string, field: string): string {
  try {
    const answer = JSON.parse(text) as { data?: Record<string, unknown> };
    if (answer.data && typeof answer.data === 'object') delete answer.data[field];
    return JSON.stringify(answer);
  } catch {
    return '';
  }
}
