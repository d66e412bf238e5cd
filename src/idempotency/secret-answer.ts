import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const SECRET_ANSWER = 'idempotency:secret-answer';
/** Carries the declaration to documentIdempotency, which removes it from the document. */
export const SECRET_ANSWER_EXTENSION = 'x-secret-in-answer';

/**
 * A route whose success answer holds a secret shown only once (a webhook's signing secret, an API
 * key). Such an answer is never stored in plain text by the Idempotency-Key layer:
 * - `encrypt`: stored encrypted with ENCRYPTION_KEY and replayed in full; without ENCRYPTION_KEY it is
 *   not stored, and a replay is answered 409 naming the resource the first request created;
 * - `never`: never stored (the contract keeps only a hash of an API key); a replay is that 409.
 * Either way the answer is replayed only to the API key that made the first request: another key of
 * the workspace sending the same key and body gets 422, so that an Idempotency-Key is no way to read
 * another client's secret.
 */
export interface SecretAnswer {
  /** The member of `data` that holds the secret (`secret`, `key`). */
  field: string;
  /** What the first request created, for the 409 of a replay: `webhook`, `API key`. */
  resource: string;
  store: 'encrypt' | 'never';
}

export const SecretInAnswer = (secret: SecretAnswer) =>
  applyDecorators(
    SetMetadata(SECRET_ANSWER, secret),
    ApiExtension(SECRET_ANSWER_EXTENSION, { ...secret }),
  );
