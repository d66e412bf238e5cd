import type { OpenAPIObject } from '@nestjs/swagger';
import { errorResponse } from '../common/swagger';
import {
  IDEMPOTENCY_KEY_FIELD,
  IDEMPOTENT_METHODS,
  isStoredStatus,
  MAX_KEY_LENGTH,
  REPLAYED_HEADER,
} from './idempotency-key';
import { SECRET_ANSWER_EXTENSION, type SecretAnswer } from './secret-answer';

/** The parameter is a shared component; the response header is written inline (generated clients
 * type a header given by reference as always present). */
const PARAMETER_NAME = 'IdempotencyKey';

const PARAMETER = {
  name: IDEMPOTENCY_KEY_FIELD,
  in: 'header',
  required: false,
  description:
    `1-${MAX_KEY_LENGTH} printable ASCII characters (a UUID v4 is a good choice), bare or as a ` +
    'quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same ' +
    'key with the same request (method, path and query, canonical JSON body) within ' +
    'IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` ' +
    'and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is ' +
    'still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are ' +
    'per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx ' +
    'answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets ' +
    'a cookie. README "Idempotent requests".',
  schema: { type: 'string', example: '8e03978e-40d5-43e8-bc93-6894a57f9324' },
};

const REPLAYED = {
  description:
    '`true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer)',
  schema: { type: 'string', enum: ['true'] },
};

interface Operation {
  parameters?: unknown[];
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
  [SECRET_ANSWER_EXTENSION]?: SecretAnswer;
}

/**
 * Documents the Idempotency-Key header on every POST, PATCH and DELETE operation, once here rather
 * than on each route (as the interceptor applies to every such route): the header parameter, the
 * 400 of a malformed header, the 409 of a request still in progress, the 422 of a reused key, and
 * `Idempotency-Replayed` on every answer that is stored (so may be replayed). An operation whose
 * answer holds a secret (@SecretInAnswer) says what its replay is.
 */
export function documentIdempotency(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  (components.parameters ??= {})[PARAMETER_NAME] = PARAMETER as never;
  const parameter = { $ref: `#/components/parameters/${PARAMETER_NAME}` };
  for (const item of Object.values(document.paths)) {
    for (const [method, value] of Object.entries(item) as [string, unknown][]) {
      if (!IDEMPOTENT_METHODS.has(method.toUpperCase())) continue;
      const op = value as Operation;
      const secret = op[SECRET_ANSWER_EXTENSION];
      delete op[SECRET_ANSWER_EXTENSION];
      (op.parameters ??= []).push(parameter);
      const responses = (op.responses ??= {});
      responses['400'] ??= errorResponse(
        400,
        'VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it)',
      );
      const inProgress = 'a request with this Idempotency-Key is still in progress';
      if (responses['409']) responses['409'].description += `; or ${inProgress}`;
      else responses['409'] = errorResponse(409, `CONFLICT: ${inProgress}`);
      responses['422'] = errorResponse(422);
      for (const [status, response] of Object.entries(responses)) {
        if (!isStoredStatus(Number(status)) || response.headers?.['Set-Cookie']) continue;
        if (secret && Number(status) < 300) {
          response.description = secretReplay(secret, response.description);
          if (secret.store === 'never') continue;
        }
        response.headers = { ...response.headers, [REPLAYED_HEADER]: REPLAYED };
      }
      if (secret && responses['409']) {
        responses['409'].description +=
          `; or a repeated Idempotency-Key whose first answer (the ${secret.resource} with its ` +
          `${secret.field}) is not stored`;
      }
    }
  }
}

function secretReplay(secret: SecretAnswer, description = ''): string {
  const replay =
    secret.store === 'never'
      ? `never stored: a repeated Idempotency-Key is answered 409 naming the ${secret.resource}`
      : `stored encrypted with ENCRYPTION_KEY and replayed in full, to the same API key only; ` +
        `without ENCRYPTION_KEY not stored, and a repeated Idempotency-Key is answered 409 ` +
        `naming the ${secret.resource}`;
  const text = `With an Idempotency-Key, this answer (it holds the ${secret.field}) is ${replay}.`;
  return description ? `${description} ${text}` : text;
}
