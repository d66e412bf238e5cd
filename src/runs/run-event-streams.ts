import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CoalescedTask } from '../common/coalesced-task';
import { CapacityError, NotFoundError, ServiceUnavailableError } from '../common/errors';
import { PgListener } from '../common/pg-listener';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { ANNOUNCE_CHECK_MS, RUN_EVENTS_CHANNEL, RUN_EVENTS_LISTENER_NAME } from '../queue/channels';
import { ENDED_STATUSES } from '../queue/statuses';
import { RunsRepository, type SequencedEventRow } from './runs.repository';
import { toRunEventDto } from './runs.service';
import { HEARTBEAT, SseResponse, sseMessage } from './sse';

/** Events read per run by one query (a stream's catch-up page, or a wake-up's read). */
const PAGE = 200;
/** Runs read by one wake-up query. */
const RUNS_PER_READ = 500;
/**
 * A wake-up read waits this long first, so that the notifications of a busy executor (one per
 * statement, many a second) are read together: one query for all the runs woken meanwhile, at the
 * price of this much latency (bench scenario 9).
 */
const READ_COALESCE_MS = 20;
/**
 * Every open stream's run is read again this often whatever the notifications said: a notification
 * lost without the listener noticing (it notices a lost connection, and re-reads then) costs at most
 * this delay, never an event.
 */
const RESYNC_MS = 30_000;
/** The LISTEN connection stays open this long after the last stream closed, for the next one. */
const LISTEN_LINGER_MS = 60_000;
/** `Retry-After` of a 429 for a full cap: streams end when their runs do. */
const CAP_RETRY_AFTER_SECONDS = 5;

/** The events after which a run has nothing more to say (unless a FAILED run is retried). */
const TERMINAL_EVENTS = new Set(['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED']);

/** One open stream: where it is in its run's events. */
interface Stream {
  readonly workspaceId: string;
  readonly feed: Feed;
  readonly sse: SseResponse;
  /** The seq of the last event written (or the client's Last-Event-ID). */
  lastSent: number;
  /** The type of the last event written. */
  lastType?: string;
  /** Caught up: fed by the run's wake-up reads from now on. */
  live: boolean;
}

/** The streams of one run in this process, and how far the wake-up reads have read its events. */
interface Feed {
  readonly runId: string;
  readonly workspaceId: string;
  readonly streams: Set<Stream>;
  /** The seq up to which wake-up reads have read; null until the first stream is caught up. */
  cursor: number | null;
}

/**
 * The live run event streams of this process (GET /v1/workflow-runs/:id/events/stream).
 *
 * Each stream first catches up by itself (pages of the run's events after its Last-Event-ID, waiting
 * for the client to take each page), then joins its run's feed. Nothing polls per client: every
 * statement that records events NOTIFYs their run ids on RUN_EVENTS_CHANNEL, one LISTEN connection per
 * process (open while streams are) marks those runs' feeds dirty, and one query reads the new events
 * of every dirty run at once, shared by all the streams of each run. A lost notification is covered
 * by re-reading every feed when the listener reconnects, and every RESYNC_MS.
 *
 * Bounded: open streams are capped per process and per workspace (429), and a live stream whose
 * client has left more than SSE_MAX_BUFFERED_BYTES unread is dropped instead of buffered further (it
 * reconnects and resumes from its Last-Event-ID). On shutdown every stream is ended first, so that
 * the HTTP server's close does not wait for them.
 */
@Injectable()
export class RunEventStreams implements OnModuleDestroy {
  private readonly logger = new Logger(RunEventStreams.name);
  private readonly feeds = new Map<string, Feed>();
  private readonly streams = new Set<Stream>();
  /** Open (or opening) streams per workspace. */
  private readonly perWorkspace = new Map<string, number>();
  private opening = 0;
  private readonly dirty = new Set<Feed>();
  private readonly reader = new CoalescedTask(() => this.readDirty());
  private listener?: PgListener;
  private listening?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private linger?: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly runs: RunsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Streams open now in this process (for tests and metrics). */
  get open(): number {
    return this.streams.size;
  }

  /**
   * Answers one stream request: the run's events after `lastEventId`, then new ones as they are
   * recorded, until the run's terminal event. Errors before the first byte (404, 429, 503) are thrown
   * for the envelope; a run that is over with nothing after `lastEventId` answers 204 (EventSource
   * stops reconnecting on a 204).
   */
  async stream(
    workspaceId: string,
    runId: string,
    lastEventId: number,
    req: Request,
    res: Response,
  ): Promise<void> {
    if (this.closing) throw new ServiceUnavailableError('the service is shutting down', 1);
    this.reserve(workspaceId);
    let handedOver = false;
    try {
      // Listening before the first read: whatever commits after that read is announced to us.
      await this.listen();
      const run = await this.runs.statusAndLastSeq(workspaceId, runId);
      if (!run) throw new NotFoundError('workflow run');
      // An id past the run's last event (another run's, or made up) resumes at the run's end.
      const after = Math.min(lastEventId, run.lastSeq);
      const first = await this.read(workspaceId, runId, after);
      if (first.length === 0 && ENDED_STATUSES.has(run.status)) {
        res.status(204).end();
        return;
      }
      if (req.destroyed || res.destroyed) return;
      // Shutdown began while this request waited: a stream opened now would hold the server's close.
      if (this.closing) throw new ServiceUnavailableError('the service is shutting down', 1);
      const stream = this.join(workspaceId, runId, after, res);
      handedOver = true;
      res.on('close', () => this.leave(stream));
      stream.sse.open();
      void this.catchUp(stream, first).catch((err: unknown) => {
        this.logger.warn({ err, runId }, 'event stream failed; ending it');
        stream.sse.end();
      });
    } finally {
      if (!handedOver) this.release(workspaceId);
    }
  }

  /** Ends every stream and closes the listener: the HTTP server then closes without waiting. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    for (const stream of this.streams) stream.sse.end();
    await this.stopListening();
  }

  /** Takes a slot under both caps, or refuses with 429 before anything is read. */
  private reserve(workspaceId: string): void {
    const { maxStreams, maxPerWorkspace } = this.config.eventStreams;
    const inWorkspace = this.perWorkspace.get(workspaceId) ?? 0;
    if (inWorkspace >= maxPerWorkspace) {
      throw new CapacityError(
        `too many open event streams for this workspace (at most ${maxPerWorkspace})`,
        { name: 'SSE_MAX_STREAMS_PER_WORKSPACE', value: maxPerWorkspace },
        CAP_RETRY_AFTER_SECONDS,
      );
    }
    if (this.streams.size + this.opening >= maxStreams) {
      throw new CapacityError(
        `too many open event streams on this server (at most ${maxStreams})`,
        { name: 'SSE_MAX_STREAMS', value: maxStreams },
        CAP_RETRY_AFTER_SECONDS,
      );
    }
    this.perWorkspace.set(workspaceId, inWorkspace + 1);
    this.opening += 1;
  }

  /** Gives back a slot taken by `reserve` for a request that opened no stream. */
  private release(workspaceId: string): void {
    this.opening -= 1;
    this.releaseWorkspace(workspaceId);
    this.lingerIfIdle();
  }

  private releaseWorkspace(workspaceId: string): void {
    const left = (this.perWorkspace.get(workspaceId) ?? 1) - 1;
    if (left > 0) this.perWorkspace.set(workspaceId, left);
    else this.perWorkspace.delete(workspaceId);
  }

  /** Registers a stream (its slot already reserved) with its run's feed, not yet live. */
  private join(workspaceId: string, runId: string, after: number, res: Response): Stream {
    let feed = this.feeds.get(runId);
    if (!feed) {
      feed = { runId, workspaceId, streams: new Set(), cursor: null };
      this.feeds.set(runId, feed);
    }
    const sse = new SseResponse(res, this.config.eventStreams.maxBufferedBytes);
    const stream: Stream = { workspaceId, feed, sse, lastSent: after, live: false };
    feed.streams.add(stream);
    this.opening -= 1;
    this.streams.add(stream);
    return stream;
  }

  /** A stream closed (ended, dropped or left by its client): its slot and feed place are freed. */
  private leave(stream: Stream): void {
    if (!this.streams.delete(stream)) return;
    stream.feed.streams.delete(stream);
    if (stream.feed.streams.size === 0 && this.feeds.get(stream.feed.runId) === stream.feed) {
      this.feeds.delete(stream.feed.runId);
      this.dirty.delete(stream.feed);
    }
    this.releaseWorkspace(stream.workspaceId);
    this.lingerIfIdle();
  }

  /**
   * Writes pages of the run's events until the stream has everything recorded, waiting for the client
   * to take each write, then hands the stream to its feed. The hand-over is synchronous with the check
   * that the stream has read at least as far as the feed, so no event falls between the two.
   */
  private async catchUp(stream: Stream, first: SequencedEventRow[]): Promise<void> {
    let page = first;
    for (;;) {
      if (!(await this.write(stream, page, true))) return;
      if (page.length < PAGE) {
        if (this.endIfOver(stream)) return;
        const feed = stream.feed;
        if (feed.cursor === null) feed.cursor = stream.lastSent;
        if (stream.lastSent >= feed.cursor) {
          stream.live = true;
          // Whatever was announced before the feed had a cursor is read now.
          this.wake(feed);
          return;
        }
      }
      page = await this.read(stream.workspaceId, stream.feed.runId, stream.lastSent);
      if (stream.sse.closed) return;
    }
  }

  /**
   * Writes the events the stream has not had yet. With `patient`, waits whenever the client's buffer
   * is full (catching up); otherwise writes on, and SseResponse drops a stream past its cap. False
   * once the stream is closed.
   */
  private async write(
    stream: Stream,
    events: SequencedEventRow[],
    patient: boolean,
  ): Promise<boolean> {
    for (const event of events) {
      if (event.seq <= stream.lastSent) continue;
      const data = JSON.stringify(toRunEventDto(event));
      const { written, full } = stream.sse.write(sseMessage(event.seq, event.event_type, data));
      if (!written) {
        if (!stream.sse.closed) continue;
        this.logDrop(stream);
        return false;
      }
      stream.lastSent = event.seq;
      stream.lastType = event.event_type;
      if (full && patient) await stream.sse.drained();
      if (stream.sse.closed) return false;
    }
    return !stream.sse.closed;
  }

  /**
   * Ends the stream when the last event it has is the run's terminal one. Called only when a read
   * found nothing more: a FAILED run that was retried has events after its WORKFLOW_FAILED, and its
   * stream goes on. Returns whether it ended.
   */
  private endIfOver(stream: Stream): boolean {
    if (stream.lastType === undefined || !TERMINAL_EVENTS.has(stream.lastType)) return false;
    stream.sse.end();
    return true;
  }

  private logDrop(stream: Stream): void {
    this.logger.warn(
      { runId: stream.feed.runId, limit: this.config.eventStreams.maxBufferedBytes },
      'dropped an event stream whose client left more than SSE_MAX_BUFFERED_BYTES unread',
    );
  }

  private read(workspaceId: string, runId: string, after: number): Promise<SequencedEventRow[]> {
    return this.runs.eventsAfter([{ workspaceId, runId, after }], PAGE);
  }

  private wake(feed: Feed): void {
    this.dirty.add(feed);
    this.reader.trigger();
  }

  /** A notification: the runs (ids, comma-separated) recorded events. */
  private announced(payload: string | undefined): void {
    if (!payload) return;
    let woken = false;
    for (const runId of payload.split(',')) {
      const feed = this.feeds.get(runId);
      if (feed) {
        this.dirty.add(feed);
        woken = true;
      }
    }
    if (woken) this.reader.trigger();
  }

  /** Marks every feed for a read (after a reconnect of the listener, and every RESYNC_MS). */
  private resync(): void {
    for (const feed of this.feeds.values()) this.dirty.add(feed);
    if (this.dirty.size > 0) this.reader.trigger();
  }

  /**
   * Reads the new events of the dirty feeds, RUNS_PER_READ runs per query, and hands them to their
   * live streams. Feeds without a cursor yet are left to their catching-up stream. A failed read is
   * logged; the next notification or resync reads again from the same cursors.
   */
  private async readDirty(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, READ_COALESCE_MS));
    while (this.dirty.size > 0) {
      const batch: Feed[] = [];
      for (const feed of this.dirty) {
        this.dirty.delete(feed);
        if (feed.cursor !== null && feed.streams.size > 0) batch.push(feed);
        if (batch.length === RUNS_PER_READ) break;
      }
      if (batch.length === 0) return;
      let rows: SequencedEventRow[];
      try {
        rows = await this.runs.eventsAfter(
          batch.map((f) => ({ workspaceId: f.workspaceId, runId: f.runId, after: f.cursor! })),
          PAGE,
        );
      } catch (err) {
        this.logger.warn({ err }, 'reading new run events for the event streams failed');
        return;
      }
      const byRun = new Map<string, SequencedEventRow[]>();
      for (const row of rows) {
        const list = byRun.get(row.run_id);
        if (list) list.push(row);
        else byRun.set(row.run_id, [row]);
      }
      for (const feed of batch) {
        const events = byRun.get(feed.runId) ?? [];
        if (events.length > 0) feed.cursor = Math.max(feed.cursor!, events[events.length - 1].seq);
        const complete = events.length < PAGE;
        if (!complete) this.dirty.add(feed);
        for (const stream of feed.streams) {
          if (!stream.live) continue;
          if ((await this.write(stream, events, false)) && complete) this.endIfOver(stream);
        }
      }
    }
  }

  /** Opens the LISTEN connection and the heartbeat and resync timers, once, while streams exist. */
  private listen(): Promise<void> {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    if (!this.listening) {
      const url = this.config.databaseUrl;
      if (!url) throw new Error('RunEventStreams needs a resolved DATABASE_URL');
      const listener = new PgListener({
        url,
        channels: [RUN_EVENTS_CHANNEL],
        onNotify: (_channel, payload) => this.announced(payload),
        onReconnect: () => {
          this.resync();
          this.resyncOnceNoticed();
        },
        logger: this.logger,
        label: 'run event streams',
        applicationName: RUN_EVENTS_LISTENER_NAME,
      });
      this.listener = listener;
      this.listening = listener.start().then(
        () => this.resyncOnceNoticed(),
        (err: unknown) => {
          if (this.listener === listener) {
            this.listener = undefined;
            this.listening = undefined;
          }
          throw err;
        },
      );
      for (const timer of this.timers) clearInterval(timer);
      const heartbeat = setInterval(() => this.heartbeat(), this.config.eventStreams.heartbeatMs);
      const resync = setInterval(() => this.resync(), RESYNC_MS);
      heartbeat.unref();
      resync.unref();
      this.timers = [heartbeat, resync];
    }
    return this.listening;
  }

  /**
   * Executors announce events only while they see a listening connection (RunEventAnnouncer, checked
   * every ANNOUNCE_CHECK_MS): what they recorded between this connection's LISTEN and their next check
   * went unannounced, so every open stream's run is read again once they have surely noticed.
   */
  private resyncOnceNoticed(): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      this.resync();
    }, ANNOUNCE_CHECK_MS * 2);
    timer.unref();
    this.timers.push(timer);
  }

  private heartbeat(): void {
    for (const stream of this.streams) {
      const { written } = stream.sse.write(HEARTBEAT);
      if (!written && stream.sse.closed) this.logDrop(stream);
    }
  }

  /** Once nothing is open or opening, closes the listener after LISTEN_LINGER_MS. */
  private lingerIfIdle(): void {
    if (this.streams.size > 0 || this.opening > 0 || !this.listening || this.linger) return;
    this.linger = setTimeout(() => {
      this.linger = undefined;
      void this.stopListening();
    }, LISTEN_LINGER_MS);
    this.linger.unref();
  }

  private async stopListening(): Promise<void> {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const listener = this.listener;
    this.listener = undefined;
    this.listening = undefined;
    await listener?.stop();
  }
}
