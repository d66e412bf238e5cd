/**
 * The SQL of idempotent requests (README "Idempotent requests"). A key's row is claimed by the first
 * request, answered once that request's answer is sent, and deleted by the cleanup once expired. Every
 * statement names the row by scope first (`ws:<workspace id>` or `ip:<address>`), then the key.
 */

/**
 * The settings of the connections WRITE runs on (IdempotencyRepository). `synchronous_commit` off: its
 * commits do not wait for the disk (see the repository). No sequential scan, hash or merge join:
 * WRITE finds every row it updates by primary key, its plan is cached per connection, and a plan made
 * while the table was small (a new table's statistics) scans the whole table under a hash join, a
 * cost that grows with the table at every statement.
 */
export const WRITE_SESSION_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['synchronous_commit', 'off'],
  ['enable_seqscan', 'off'],
  ['enable_hashjoin', 'off'],
  ['enable_mergejoin', 'off'],
];

/** The columns a request reads of an existing row: enough to replay it or say how it differs. */
const ROW = `method, path, body_hash, caller, status, headers, body, secret_withheld`;

/**
 * The two writes of every keyed request, for many requests at once: the claims of new keys and the
 * answers of claimed ones, in one statement, so that a busy service pays about one round trip per
 * batch of requests for both (KeyWriter).
 *
 * `answered`: answers ($1-$7: scope, key, owner, status, headers, body, secret withheld) written into
 * their claims, each only while the claim is still its owner's (a request that outlived its lease and
 * was taken over does not overwrite the answer of the request that took it).
 *
 * `claimed`: claims of keys ($8-$14: scope, key, method, path, body hash, caller, owner), leased for
 * $15 ms and kept $16 ms. The primary key decides between concurrent duplicates, across processes and
 * within the batch; a key held already inserts nothing, and that request goes on through CLAIM, which
 * looks at the row. (The writer never puts a claim and an answer of one key in the same statement.)
 *
 * Returns the owners claimed and the keys answered.
 */
export const WRITE = `
  WITH answered AS (
    UPDATE idempotency_keys k
    SET status = a.status, headers = a.headers::jsonb, body = a.body, secret_withheld = a.withheld,
        owner = NULL, locked_until = NULL
    FROM unnest($1::text[], $2::text[], $3::uuid[], $4::smallint[], $5::text[], $6::text[],
                $7::boolean[]) AS a(scope, key, owner, status, headers, body, withheld)
    WHERE k.scope = a.scope AND k.key = a.key AND k.owner = a.owner
    RETURNING k.scope, k.key
  ), claimed AS (
    INSERT INTO idempotency_keys
      (scope, key, method, path, body_hash, caller, owner, locked_until, expires_at)
    SELECT c.scope, c.key, c.method, c.path, c.body_hash, c.caller, c.owner,
           now() + make_interval(secs => $15::double precision / 1000),
           now() + make_interval(secs => $16::double precision / 1000)
    FROM unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::bytea[], $13::uuid[],
                $14::uuid[]) AS c(scope, key, method, path, body_hash, caller, owner)
    ON CONFLICT (scope, key) DO NOTHING
    RETURNING owner
  )
  SELECT owner::text AS claimed, NULL AS scope, NULL AS key FROM claimed
  UNION ALL
  SELECT NULL, scope, key FROM answered`;

/**
 * The API-key lookup of a keyed request and the claim of its Idempotency-Key, in one statement
 * (ClaimingLookup): the active key with hash $1 (as `api_key_lookup` finds it: id, workspace, scopes)
 * and, in its workspace's scope, the claim of key $2 for request ($3 method, $4 path, $5 body hash,
 * the found key as caller) as owner $6, leased for $7 ms and kept $8 ms. `claimed` is false when the
 * key is held already (that request goes on through CLAIM); no row when there is no such API key (and
 * nothing is claimed).
 */
export const AUTHENTICATE_AND_CLAIM = `
  WITH k AS (
    SELECT id, workspace_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL
  ), claimed AS (
    INSERT INTO idempotency_keys
      (scope, key, method, path, body_hash, caller, owner, locked_until, expires_at)
    SELECT 'ws:' || k.workspace_id, $2, $3, $4, $5, k.id, $6,
           now() + make_interval(secs => $7::double precision / 1000),
           now() + make_interval(secs => $8::double precision / 1000)
    FROM k
    ON CONFLICT (scope, key) DO NOTHING
    RETURNING owner
  )
  SELECT k.id, k.workspace_id, k.scopes, EXISTS (SELECT 1 FROM claimed) AS claimed FROM k`;

/**
 * Claims key $2 in scope $1 for request ($3 method, $4 path, $5 body hash, $6 caller) as owner $7,
 * leased for $8 ms and kept $9 ms, or returns the row that holds it: one round trip either way. $10:
 * whether the caller (API key) must be the same for the request to be the same (a route whose answer
 * holds a secret).
 *
 * The INSERT wins the primary key against concurrent duplicates (they wait for its commit, then
 * conflict). On a conflict the row is taken over (claimed anew) only when it has expired (a key works
 * anew after IDEMPOTENCY_KEY_TTL_MS, whether or not the cleanup has deleted it yet) or when it is the
 * same request still "in progress" past its lease (its process died: the claim must not block the key
 * for good). Otherwise nothing is claimed and the second branch returns the row as it is; a row
 * committed by a concurrent claim after this statement's snapshot is not visible to that branch, and
 * the caller simply runs the statement again.
 */
export const CLAIM = `
  WITH claimed AS (
    INSERT INTO idempotency_keys AS k
      (scope, key, method, path, body_hash, caller, owner, locked_until, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7,
            now() + make_interval(secs => $8::double precision / 1000),
            now() + make_interval(secs => $9::double precision / 1000))
    ON CONFLICT (scope, key) DO UPDATE SET
      method = EXCLUDED.method, path = EXCLUDED.path, body_hash = EXCLUDED.body_hash,
      caller = EXCLUDED.caller, owner = EXCLUDED.owner, locked_until = EXCLUDED.locked_until,
      expires_at = EXCLUDED.expires_at, created_at = now(),
      status = NULL, headers = NULL, body = NULL, secret_withheld = false
    WHERE k.expires_at <= now()
       OR (k.status IS NULL AND k.locked_until <= now()
           AND k.method = EXCLUDED.method AND k.path = EXCLUDED.path
           AND k.body_hash = EXCLUDED.body_hash
           AND ($10::boolean IS NOT TRUE OR k.caller IS NOT DISTINCT FROM EXCLUDED.caller))
    RETURNING true AS claimed
  )
  SELECT claimed, NULL::text AS method, NULL::text AS path, NULL::bytea AS body_hash,
         NULL::uuid AS caller, NULL::smallint AS status, NULL::jsonb AS headers, NULL::text AS body,
         false AS secret_withheld
  FROM claimed
  UNION ALL
  SELECT false, ${ROW}
  FROM idempotency_keys
  WHERE scope = $1 AND key = $2 AND expires_at > now() AND NOT EXISTS (SELECT 1 FROM claimed)`;

/**
 * Gives the key back (an answer that is not stored: 5xx, 429, an invalid request): the next request
 * with it runs as a first one. Only owner $3's claim.
 */
export const RELEASE = `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND owner = $3`;

/**
 * Takes (or keeps) the lease of job $1 for holder $2 for $3 ms: free, expired, or already $2's. No
 * row back: another replica holds it.
 */
export const TAKE_JOB_LEASE = `
  INSERT INTO job_leases AS l (name, holder, lease_until)
  VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
  ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
  WHERE l.lease_until <= now() OR l.holder = EXCLUDED.holder
  RETURNING holder`;

/** Hands the lease back at shutdown, so that another replica takes the job at its next tick. */
export const DROP_JOB_LEASE = `
  UPDATE job_leases SET lease_until = now() WHERE name = $1 AND holder = $2`;

/**
 * Deletes up to $1 expired keys, oldest first, through the `expires_at` index. SKIP LOCKED: a row a
 * request is claiming anew (an expired key sent again) is left for the next batch.
 */
export const DELETE_EXPIRED = `
  DELETE FROM idempotency_keys
  WHERE (scope, key) IN (
    SELECT scope, key FROM idempotency_keys
    WHERE expires_at <= now()
    ORDER BY expires_at
    LIMIT $1
    FOR UPDATE SKIP LOCKED)`;
