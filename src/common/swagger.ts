import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import type {
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorEnvelope, PageMeta } from './envelope';

/** The error code each status carries (README "Responses and errors"). */
export const ERROR_CODE_BY_STATUS = {
  400: 'VALIDATION_ERROR',
  401: 'AUTH_ERROR',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'IDEMPOTENCY_KEY_REUSED',
  429: 'RATE_LIMIT_ERROR',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
} as const;
export type ErrorStatus = keyof typeof ERROR_CODE_BY_STATUS;

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field)',
  401: 'AUTH_ERROR: missing, invalid or revoked credentials',
  403:
    'FORBIDDEN: a change through the console session cookie (or a console sign-in) whose Origin ' +
    'is not this service: cross-site request refused',
  404: 'NOT_FOUND: absent or in another workspace',
  409: 'CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached',
  413: 'PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it)',
  415: 'UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8)',
  422:
    'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, ' +
    'path, body, or API key when the answer holds a secret)',
  429: 'RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds',
  500: 'INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id)',
  503: 'SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds',
};

/**
 * What the JSON body middleware can answer on any request that carries a body, before the route's
 * own validation: malformed JSON (400), over 1 MiB (413), not `application/json` (415).
 */
export const BODY_ERRORS = [400, 413, 415] as const;

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
} as const;

/** `{success: true, data}` around `data`, plus `meta` for a page; every member required. */
function successEnvelope(data: SchemaObject | ReferenceObject, page: boolean): SchemaObject {
  const properties: Record<string, SchemaObject | ReferenceObject> = {
    success: { type: 'boolean', enum: [true] },
    data,
  };
  if (page) properties.meta = { $ref: getSchemaPath(PageMeta) };
  return {
    type: 'object',
    required: page ? ['success', 'data', 'meta'] : ['success', 'data'],
    properties,
  };
}

/** Documents the success envelope around a DTO: `{success, data}` (optionally an array or a page). */
export function ApiEnvelope(
  model: Type<unknown>,
  status = 200,
  shape: 'one' | 'array' | 'page' = 'one',
  headers?: Record<string, { description: string; schema: SchemaObject }>,
) {
  const data: SchemaObject | ReferenceObject =
    shape === 'one'
      ? { $ref: getSchemaPath(model) }
      : { type: 'array', items: { $ref: getSchemaPath(model) } };
  return applyDecorators(
    ApiExtraModels(model, PageMeta),
    ApiResponse({
      status,
      description: shape === 'page' ? 'A page of results' : '',
      schema: successEnvelope(data, shape === 'page'),
      ...(headers ? { headers } : {}),
    }),
  );
}

/** `NOT_FOUND` -> `NotFoundEnvelope`: the component schema of the error envelope with that code. */
function errorSchemaName(status: ErrorStatus): string {
  const words = ERROR_CODE_BY_STATUS[status].toLowerCase().split('_');
  return `${words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Envelope`;
}

/** An error answer in the error envelope, as a response object of the document. */
export function errorResponse(status: ErrorStatus, description = ERROR_TEXT[status]) {
  return {
    description,
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaName(status)}` } },
    },
  };
}

/**
 * Adds to the document one schema per error code: the error envelope with `error.code` fixed, so that
 * a generated client can tell the answers apart by `error.code` as well as by status. The responses
 * of ApiErrorResponses refer to them.
 */
export function documentErrorSchemas(document: OpenAPIObject): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  for (const status of Object.keys(ERROR_CODE_BY_STATUS).map(Number) as ErrorStatus[]) {
    schemas[errorSchemaName(status)] = {
      description: `The error envelope of a ${status} answer`,
      allOf: [
        { $ref: getSchemaPath(ErrorEnvelope) },
        {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              required: ['code'],
              properties: { code: { type: 'string', enum: [ERROR_CODE_BY_STATUS[status]] } },
            },
          },
        },
      ],
    };
  }
}

/** Documents exactly these error answers, all in the error envelope. */
export function ApiErrorResponses(...statuses: ErrorStatus[]) {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelope),
    ...[...new Set(statuses)].map((status) =>
      ApiResponse({
        status,
        description: ERROR_TEXT[status],
        schema: { $ref: `#/components/schemas/${errorSchemaName(status)}` },
        ...(status === 503 || status === 429 ? { headers: RETRY_AFTER } : {}),
      }),
    ),
  );
}

/**
 * Documents the error answers of an API endpoint, all in the error envelope. Every API endpoint can
 * be rate-limited (429), needs the database (503, design §9) and can fail unexpectedly (500).
 */
export function ApiErrors(...statuses: ErrorStatus[]) {
  return ApiErrorResponses(...statuses, 429, 500, 503);
}

const UNSAFE_METHODS = ['post', 'put', 'patch', 'delete'];

/**
 * README "Scopes": every operation whose route declares a scope (`@RequiresScope`, which writes
 * `x-required-scope`) says so in its description and declares the 403 FORBIDDEN a key without it
 * gets. Done here once, so that no route can forget it. Runs before documentConsoleSession, whose 403
 * it covers for the changes (the same status, one description for both causes).
 */
export function documentScopes(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, unknown][]) {
      const op = operation as {
        description?: string;
        responses?: Record<string, unknown>;
        'x-required-scope'?: unknown;
      };
      const scope = op?.['x-required-scope'];
      if (typeof scope !== 'string' || !op.responses) continue;
      const needs = `The calling API key needs the scope \`${scope}\` (403 FORBIDDEN otherwise).`;
      op.description = op.description ? `${op.description} ${needs}` : needs;
      const crossSite = UNSAFE_METHODS.includes(method)
        ? '; or a change through the console session cookie whose Origin is not this service: ' +
          'cross-site request refused'
        : '';
      op.responses['403'] = {
        description: `FORBIDDEN: the API key lacks the scope (\`API key lacks scope ${scope}\`)${crossSite}`,
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${errorSchemaName(403)}` },
          },
        },
      };
    }
  }
}

/**
 * Design §12: every operation that takes an API key also takes the console session cookie when
 * `x-api-key` is absent, and such a request that changes something (POST, PUT, PATCH, DELETE) is
 * refused 403 FORBIDDEN unless its Origin is this service's. Documented here once for every operation
 * instead of on each route, so that no route can forget it.
 */
export function documentConsoleSession(document: OpenAPIObject, schemeName: string): void {
  const forbidden = errorResponse(403);
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, unknown][]) {
      const op = operation as {
        security?: Record<string, string[]>[];
        responses?: Record<string, unknown>;
      };
      if (!op?.security?.some((s) => 'api-key' in s)) continue;
      op.security.push({ [schemeName]: [] });
      if (UNSAFE_METHODS.includes(method) && op.responses && !op.responses['403']) {
        op.responses['403'] = forbidden;
      }
    }
  }
}
