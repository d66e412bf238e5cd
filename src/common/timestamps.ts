import { applyDecorators } from '@nestjs/common';
import { IsISO8601, IsOptional, Matches } from 'class-validator';

/**
 * A calendar date (midnight UTC) or a date-time with a zone (`Z` or an offset). A date-time without a
 * zone is refused: it would mean the server's local time.
 */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

export const timestampMessage = (field: string) =>
  `${field} must be an ISO 8601 date or timestamp with a zone, e.g. 2025-01-31T00:00:00Z`;

/** An optional query parameter holding such a timestamp; 400 naming `field` otherwise. */
export function OptionalTimestamp(field: string) {
  return applyDecorators(
    IsOptional(),
    IsISO8601({ strict: true, strictSeparator: true }, { message: timestampMessage(field) }),
    Matches(TIMESTAMP, { message: timestampMessage(field) }),
  );
}
