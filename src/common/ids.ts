import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a resource and is answered as "not found". */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * A time-ordered id (UUID version 7, RFC 9562): the Unix time in milliseconds in the first 48 bits,
 * then the version, then 74 random bits with the RFC variant, taken from a random (version 4) UUID.
 * New rows keyed by these land on the right-hand pages of their indexes (see the TimeOrderedIds
 * migration, whose `uuid_v7()` makes the same ids in PostgreSQL).
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; keep everything after the version nibble.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
