/** The timestamp format of the interface: ISO 8601 UTC with milliseconds. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Resource ids are UUIDs. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Ids of the rows every run adds are time-ordered: UUID version 7 with the RFC variant. */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix time in milliseconds that a version 7 UUID begins with. */
export function uuidMillis(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}
