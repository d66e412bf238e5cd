import { Injectable } from '@nestjs/common';
import { Database } from '../common/database';
import * as SQL from './idempotency.sql';

/** What a request is, for telling a replay from a reuse of its key. */
export interface RequestFingerprint {
  method: string;
  /** The path and query as sent. */
  path: string;
  bodyHash: Buffer;
  /** The calling API key, for routes whose answer holds a secret; else null. */
  caller: string | null;
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
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims the key for `owner`, or returns the row that holds it; undefined when neither happened
   * (a concurrent claim committed after the statement's snapshot: ask again).
   */
  async claim(
    scope: string,
    key: string,
    request: RequestFingerprint,
    owner: string,
    leaseMs: number,
    ttlMs: number,
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

  /** Stores the answer of owner's claim; false when the claim is no longer owner's. */
  async answer(scope: string, key: string, owner: string, answer: StoredAnswer): Promise<boolean> {
    const res = await this.db.query({ name: 'idempotency_answer', text: SQL.ANSWER }, [
      scope,
      key,
      owner,
      answer.status,
      answer.headers,
      answer.body,
      answer.secretWithheld,
    ]);
    return res.rowCount === 1;
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
