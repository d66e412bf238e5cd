import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorEnvelope, PageMeta } from './envelope';

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR: invalid body or query (details.errors names each field)',
  401: 'AUTH_ERROR: missing, invalid or revoked credentials',
  404: 'NOT_FOUND: absent or in another workspace',
  409: 'CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached',
  413: 'PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it)',
  429: 'RATE_LIMIT_ERROR: too many requests',
  503: 'SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds',
};

/** Documents the success envelope around a DTO: `{success, data}` (optionally an array or a page). */
export function ApiEnvelope(
  model: Type<unknown>,
  status = 200,
  shape: 'one' | 'array' | 'page' = 'one',
  headers?: Record<string, { description: string; schema: SchemaObject }>,
) {
  const data: SchemaObject | { $ref: string } =
    shape === 'one'
      ? { $ref: getSchemaPath(model) }
      : { type: 'array', items: { $ref: getSchemaPath(model) } };
  const properties: Record<string, SchemaObject | { $ref: string }> = {
    success: { type: 'boolean', example: true },
    data,
  };
  if (shape === 'page') properties.meta = { $ref: getSchemaPath(PageMeta) };
  return applyDecorators(
    ApiExtraModels(model, PageMeta),
    ApiResponse({
      status,
      schema: { type: 'object', properties },
      ...(headers ? { headers } : {}),
    }),
  );
}

/**
 * Documents the error answers an endpoint can give, all in the error envelope. Every endpoint can be
 * rate-limited (429) and needs the database (503, design §9).
 */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...[...new Set([...statuses, 429, 503])].map((status) =>
      ApiResponse({
        status,
        description: ERROR_TEXT[status],
        type: ErrorEnvelope,
        ...(status === 503 || status === 429
          ? { headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } } }
          : {}),
      }),
    ),
  );
}
