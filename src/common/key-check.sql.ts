/**
 * SQL: whether the API key whose id is the parameter `param` is active, or true when the parameter
 * is NULL (the guard read the key from the database for this request). What a route marked
 * ChecksKeyInQuery adds to its statement for a cached key (README "API key cache"): the request's
 * own statement, run after any revocation that committed before it, refuses a revoked key with no
 * round trip of its own.
 */
export const keyIsActive = (param: string): string =>
  `(${param}::uuid IS NULL OR EXISTS (SELECT 1 FROM api_keys k ` +
  `WHERE k.id = ${param}::uuid AND k.revoked_at IS NULL))`;

/** SQL: a row when the API key whose id is `id` (a parameter or a column) exists and is not revoked. */
export const keyActive = (id: string): string =>
  `SELECT 1 FROM api_keys WHERE id = ${id} AND revoked_at IS NULL`;

/** Whether the API key $1 exists and is not revoked: the check made by a query of its own. */
export const KEY_ACTIVE = keyActive('$1');
