import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import {
  IdempotencyRepository,
  WRITE_CONNECTIONS,
  type NewClaim,
  type PendingAnswer,
} from './idempotency.repository';

/** Claims and answers per statement at most, and the answers' body characters (a body may be 1 MiB). */
const MAX_CLAIMS = 500;
const MAX_ANSWERS = 200;
const MAX_ANSWER_CHARS = 4 * 1024 * 1024;
/**
 * How long answers wait for a claim to share a statement with before they are written alone. They
 * wait off the response's path (it has gone out); an identical request that arrives meanwhile waits
 * for the answer as for one in progress.
 */
const ANSWER_DELAY_MS = 10;
/**
 * How long the latest statement runs before another one may start beside it. A statement's fixed
 * cost (about 0.1 ms of the database's time, measured) is most of what a small batch costs: when the
 * database answers quickly, the claims that arrive meanwhile wait for it to finish and share the next
 * statement; when it is slow, a statement starts on another connection every STAGGER_MS.
 */
const STAGGER_MS = 2;

interface QueuedClaim extends NewClaim {
  settle: (claimed: boolean) => void;
  fail: (err: unknown) => void;
}

/**
 * The writes of keyed requests (README "Idempotent requests"), batched: the claims of new keys, which
 * their requests wait for, and the answers, which nobody waits for. A WRITE statement starts when
 * claims are queued and no statement runs, or the latest one has run STAGGER_MS and fewer than
 * WRITE_CONNECTIONS run; it takes every claim queued and the answers queued so far. Answers nobody's
 * claim takes along go alone ANSWER_DELAY_MS after they were queued. An idle service sends a claim
 * at once; a busy one pays a fraction of a statement per keyed request for both of its writes, and a
 * request waits behind at most STAGGER_MS of a slow statement. At shutdown everything queued is
 * written before the connections close.
 */
@Injectable()
export class KeyWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private claims: QueuedClaim[] = [];
  private answers: PendingAnswer[] = [];
  private inFlight = 0;
  /** When the latest statement started (performance.now()). */
  private lastStart = 0;
  private staggerTimer?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private answersDue = false;
  private draining = false;
  private idle: Array<() => void> = [];
  /** Answers queued or being written, by key (whatever the scope). */
  private readonly unwritten = new Map<string, number>();

  constructor(
    private readonly keys: IdempotencyRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether the key was free and is now the claim's owner's (false: another request holds it). */
  claim(claim: NewClaim): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.claims.push({ ...claim, settle, fail });
      this.pump();
    });
  }

  /**
   * Whether an answer for `key` (in any scope) is queued or being written: a claim of that key made
   * beside the writer (ClaimingLookup) would find it in progress and wait, where the writer's next
   * statement finds it answered.
   */
  hasUnwrittenAnswer(key: string): boolean {
    return this.unwritten.has(key);
  }

  /** Queues the answer of a claim to be stored. */
  answer(answer: PendingAnswer): void {
    this.answers.push(answer);
    this.unwritten.set(answer.key, (this.unwritten.get(answer.key) ?? 0) + 1);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.answersDue = true;
      this.pump();
    }, ANSWER_DELAY_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (this.isIdle()) return;
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.pump();
    await done;
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.claims.length === 0 && this.answers.length === 0;
  }

  /** Starts statements while there is something to write and a connection for it. */
  private pump(): void {
    while (
      this.inFlight < WRITE_CONNECTIONS &&
      (this.claims.length > 0 || (this.answers.length > 0 && (this.answersDue || this.draining)))
    ) {
      const wait = this.inFlight === 0 ? 0 : this.lastStart + STAGGER_MS - performance.now();
      if (wait > 0) {
        this.staggerTimer ??= setTimeout(() => {
          this.staggerTimer = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.lastStart = performance.now();
      const answers = this.takeAnswers();
      const claims = this.takeClaims(answers);
      if (this.answers.length === 0) {
        this.answersDue = false;
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      this.inFlight++;
      void this.write(claims, answers).finally(() => {
        this.inFlight--;
        for (const { key } of answers) {
          const left = (this.unwritten.get(key) ?? 1) - 1;
          if (left > 0) this.unwritten.set(key, left);
          else this.unwritten.delete(key);
        }
        this.pump();
        if (this.isIdle()) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  private async write(claims: QueuedClaim[], answers: PendingAnswer[]): Promise<void> {
    const { claimLeaseMs, ttlMs } = this.config.idempotency;
    try {
      const { claimed, lost } = await this.keys.write(claims, answers, claimLeaseMs, ttlMs);
      for (const c of claims) c.settle(claimed.has(c.owner));
      if (lost.length > 0) {
        this.logger.warn(
          { keys: lost.length },
          'Idempotency-Key request(s) outlived their claim (IDEMPOTENCY_CLAIM_LEASE_MS) and were ' +
            'taken over: their answers are not stored',
        );
      }
    } catch (err) {
      for (const c of claims) c.fail(err);
      if (answers.length > 0) {
        this.logger.warn(
          { err, keys: answers.length },
          'answers to Idempotency-Key requests could not be stored; their keys stay claimed until ' +
            'IDEMPOTENCY_CLAIM_LEASE_MS has passed',
        );
      }
    }
  }

  private takeAnswers(): PendingAnswer[] {
    let chars = 0;
    let n = 0;
    while (n < this.answers.length && n < MAX_ANSWERS && chars < MAX_ANSWER_CHARS) {
      chars += this.answers[n].answer.body.length;
      n++;
    }
    return this.answers.splice(0, n);
  }

  /**
   * The claims for the next statement: not one of a key answered in it (that claim goes in the next
   * statement, and finds the key answered).
   */
  private takeClaims(answers: readonly PendingAnswer[]): QueuedClaim[] {
    if (answers.length === 0) return this.claims.splice(0, MAX_CLAIMS);
    const answered = new Set(answers.map((a) => `${a.scope}\n${a.key}`));
    const now: QueuedClaim[] = [];
    const later: QueuedClaim[] = [];
    for (const c of this.claims) {
      if (now.length < MAX_CLAIMS && !answered.has(`${c.scope}\n${c.key}`)) now.push(c);
      else later.push(c);
    }
    this.claims = later;
    return now;
  }
}
