import { LimitExceededError } from './errors';

/** UTF-8 bytes of a value's JSON: what a storage size limit counts. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * Refuses (413, naming the field and the limit) a value whose JSON is over `max` bytes. Returns the
 * JSON text so that a caller about to store it need not serialise it twice.
 */
export function jsonWithin(value: unknown, max: number, field: string, limitName: string): string {
  const json = JSON.stringify(value) ?? '';
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: most values need no byte count at all.
  if (json.length * 3 <= max) return json;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > max) {
    throw new LimitExceededError(
      413,
      field,
      { name: limitName, value: max },
      `is ${bytes} bytes of JSON; at most ${max} are allowed (${limitName})`,
    );
  }
  return json;
}
