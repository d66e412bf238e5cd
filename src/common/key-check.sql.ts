/**
 * SQL: whether the API key whose id is `id` (a parameter, or a column of a row read with many others)
 * is active, or true when it is NULL (the guard read the key from the database for this request).
 * What a route marked ChecksKeyInQuery adds to its statement for a cached key (README "API key
 * cache"): the request's own statement, run after any revocation that committed before it, refuses a
 * revoked key with no round trip of its own. A scalar subquery, so that the key is probed by its
 * primary key for each row of a batch, never hashed from a scan of every key.
 */
export const keyIsActive = (id: string): string =>
  `(${id}::uuid IS NULL OR (SELECT true FROM api_keys k ` +
  `WHERE k.id = ${id}::uuid AND k.revoked_at IS NULL) IS NOT NULL)`;

/** Whether the API key $1 exists and is not revoked: the check made by a query of its own. */
export const KEY_ACTIVE = 'SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL';
