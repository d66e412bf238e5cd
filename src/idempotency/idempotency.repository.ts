import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { Database } from '../common/database';
import type { Scope } from '../common/scopes';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import * as SQL from './idempotency.sql';

/** WRITE statements in flight at most (KeyWriter). */
export const WRITE_CONNECTIONS = 4;
/**
 * The fast connections: the batched writes and the claiming key lookups of keyed requests
 * (ClaimingLookup), one per request, which wait for a connection behind at most the writes.
 */
const FAST_CONNECTIONS = 8;

/** What a request is, for telling a replay from a reuse of its key. */
export interface RequestFingerprint {
  method: string;
  /** The path and query as sent. */
  path: string;
  bodyHash: Buffer;
  /**
   * The calling API key (null without one); a request is the same only with the same caller on a
   * route whose answer holds a secret.
   */
  caller: string | null;
}

/** The active API key a claiming lookup found, and whether it claimed the request's key. */
export interface ClaimingKeyRow {
  id: string;
  workspace_id: string;
  scopes: Scope[];
  claimed: boolean;
}

/** The headers a replay carries (lower-case names). */
export type StoredHeaders = Record<string, string>;

/** An answer as stored: `body` is the JSON text sent, or its `enc:v1:` encryption. */
export interface StoredAnswer {
  status: number;
  headers: StoredHeaders;
  body: string;
  /** The answer held a secret that was not stored: `body` is the answer without it. */
  secretWithheld: boolean;
}

/** A claim of a key, by the request of `owner`. */
export interface NewClaim {
  scope: string;
  key: string;
  request: RequestFingerprint;
  owner: string;
}

/** The answer of `owner`'s claim, to be stored. */
export interface PendingAnswer {
  scope: string;
  key: string;
  owner: string;
  answer: StoredAnswer;
}

/** The row of a key another request holds. */
export interface HeldKey {
  request: RequestFingerprint;
  /** Undefined while that request is in progress. */
  answer?: StoredAnswer;
}

interface Row {
  claimed: boolean;
  method: string;
  path: string;
  body_hash: Buffer;
  caller: string | null;
  status: number | null;
  headers: StoredHeaders | null;
  body: string | null;
  secret_withheld: boolean;
}

/**
 * The idempotency_keys table (idempotency.sql.ts). `scope` is `ws:<workspace id>` or
 * `ip:<client address>`; it comes first in every statement.
 *
 * The writes of every keyed request (the claim made with its API-key lookup, AUTHENTICATE_AND_CLAIM;
 * the batched claims of new keys and answers, WRITE) run on connections of their own
 * (WRITE_SESSION_SETTINGS) with `synchronous_commit` off: their commits do not wait for the WAL to
 * reach the disk (that wait, an fsync per commit, was most of what a key cost). A claim is durable
 * by the time the request's own change commits (a later commit flushes the WAL up to it), and an
 * answer a moment later; a database crash in that moment leaves a key claimed (until its lease ends)
 * without its answer, as a crash of the service between the change and the answer does. The other
 * statements (the full claim, releases, the cleanup) are rare and use the shared pool.
 */
@Injectable()
export class IdempotencyRepository implements OnApplicationShutdown {
  private readonly fast: Pool;

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.fast = new Pool({
      connectionString: config.databaseUrl,
      max: FAST_CONNECTIONS,
      connectionTimeoutMillis: config.databaseConnectTimeoutMs,
      // Every keyed request waits behind the statement in flight: one whose connection went silent
      // must not hold them all until the operating system gives up on it (a 503 instead).
      query_timeout: 2 * config.databaseConnectTimeoutMs,
      options: SQL.WRITE_SESSION_SETTINGS.map(([name, value]) => `-c ${name}=${value}`).join(' '),
      application_name: 'idempotency',
    });
    // An idle connection that the server ends (a restart): the next statement opens another.
    this.fast.on('error', () => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fast.end();
  }

  /**
   * Writes answers into their claims and claims new keys, in one statement on the fast connections;
   * returns the owners whose claim was made and the answers that were not stored (their claim was
   * taken over).
   */
  async write(
    claims: readonly NewClaim[],
    answers: readonly PendingAnswer[],
    leaseMs: number,
    ttlMs: number,
  ): Promise<{ claimed: Set<string>; lost: PendingAnswer[] }> {
    const { rows } = await this.fast.query<{
      claimed: string | null;
      scope: string | null;
      key: string | null;
    }>({ name: 'idempotency_write', text: SQL.WRITE }, [
      answers.map((a) => a.scope),
      answers.map((a) => a.key),
      answers.map((a) => a.owner),
      answers.map((a) => a.answer.status),
      answers.map((a) => JSON.stringify(a.answer.headers)),
      answers.map((a) => a.answer.body),
      answers.map((a) => a.answer.secretWithheld),
      claims.map((c) => c.scope),
      claims.map((c) => c.key),
      claims.map((c) => c.request.method),
      claims.map((c) => c.request.path),
      claims.map((c) => c.request.bodyHash),
      claims.map((c) => c.request.caller),
      claims.map((c) => c.owner),
      leaseMs,
      ttlMs,
    ]);
    const claimed = new Set<string>();
    const answered = new Set<string>();
    for (const row of rows) {
      if (row.claimed !== null) claimed.add(row.claimed);
      else answered.add(`${row.scope}\n${row.key}`);
    }
    return { claimed, lost: answers.filter((a) => !answered.has(`${a.scope}\n${a.key}`)) };
  }

  /**
   * The active API key with hash `keyHash`, having claimed `key` for `owner` in its workspace (or
   * found it held); undefined when there is no such key. On the fast connections: the statement
   * writes, and a request waits for it as for its key lookup.
   */
  async authenticateAndClaim(
    keyHash: string,
    key: string,
    request: RequestFingerprint,
    owner: string,
    leaseMs: number,
    ttlMs: number,
  ): Promise<ClaimingKeyRow | undefined> {
    const { rows } = await this.fast.query<ClaimingKeyRow>(
      { name: 'idempotency_authenticate_and_claim', text: SQL.AUTHENTICATE_AND_CLAIM },
      [keyHash, key, request.method, request.path, request.bodyHash, owner, leaseMs, ttlMs],
    );
    return rows[0];
  }

  /**
   * Claims the key for `owner`, or returns the row that holds it; undefined when neither happened
   * (a concurrent claim committed after the statement's snapshot: ask again). `sameCaller`: a held
   * claim past its lease is taken over only by the API key that made it.
   */
  async claim(
    scope: string,
    key: string,
    request: RequestFingerprint,
    owner: string,
    leaseMs: number,
    ttlMs: number,
    sameCaller: boolean,
  ): Promise<'claimed' | HeldKey | undefined> {
    const { rows } = await this.db.query<Row>({ name: 'idempotency_claim', text: SQL.CLAIM }, [
      scope,
      key,
      request.method,
      request.path,
      request.bodyHash,
      request.caller,
      owner,
      leaseMs,
      ttlMs,
      sameCaller,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    if (row.claimed) return 'claimed';
    return {
      request: {
        method: row.method,
        path: row.path,
        bodyHash: row.body_hash,
        caller: row.caller,
      },
      answer:
        row.status === null
          ? undefined
          : {
              status: row.status,
              headers: row.headers ?? {},
              body: row.body ?? '',
              secretWithheld: row.secret_withheld,
            },
    };
  }

  /** Deletes owner's claim: the key is free again. */
  async release(scope: string, key: string, owner: string): Promise<void> {
    await this.db.query({ name: 'idempotency_release', text: SQL.RELEASE }, [scope, key, owner]);
  }

  /** Whether `holder` holds (now, for `leaseMs`) the lease of job `name`. */
  async takeJobLease(name: string, holder: string, leaseMs: number): Promise<boolean> {
    const res = await this.db.query(SQL.TAKE_JOB_LEASE, [name, holder, leaseMs]);
    return res.rowCount === 1;
  }

  async dropJobLease(name: string, holder: string): Promise<void> {
    await this.db.query(SQL.DROP_JOB_LEASE, [name, holder]);
  }

  /** Deletes up to `limit` expired keys; returns how many. */
  async deleteExpired(limit: number): Promise<number> {
    const res = await this.db.query(SQL.DELETE_EXPIRED, [limit]);
    return res.rowCount ?? 0;
  }
}
