import type { Pool } from 'pg';
import { ANNOUNCE_CHECK_MS, RUN_EVENTS_LISTENER_NAME } from './channels';

const LISTENERS_PRESENT = `
  SELECT EXISTS (
    SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1
  ) AS present`;

/**
 * Whether the executor's statements announce the events they record (ANNOUNCE_RUN_EVENTS): only while
 * some process holds a LISTEN connection for live event streams (named RUN_EVENTS_LISTENER_NAME),
 * looked up every ANNOUNCE_CHECK_MS. Without streams anywhere the hot path sends no NOTIFY: each one
 * costs its commit PostgreSQL's notification-queue lock, and the database about a fifth more CPU per
 * step. A stream's process re-reads its runs once the executors have had time to notice it (see
 * RunEventStreams), so what was recorded unannounced in between still arrives. When the lookup fails
 * the statements announce: a notification too many costs little, one too few a stalled stream.
 */
export class RunEventAnnouncer {
  private listeners = true;
  private timer?: NodeJS.Timeout;

  constructor(private readonly pool: Pool) {}

  /** Whether the next statement should announce its events. */
  get announce(): boolean {
    return this.listeners;
  }

  async start(): Promise<void> {
    await this.check();
    this.timer ??= setInterval(() => void this.check(), ANNOUNCE_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    try {
      const res = await this.pool.query<{ present: boolean }>({
        name: 'executor_event_listeners',
        text: LISTENERS_PRESENT,
        values: [RUN_EVENTS_LISTENER_NAME],
      });
      this.listeners = res.rows[0].present;
    } catch {
      this.listeners = true;
    }
  }
}
