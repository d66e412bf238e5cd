import type { Logger } from '@nestjs/common';
import { Client } from 'pg';

/**
 * A dedicated connection that LISTENs on some channels and hands every notification to `onNotify`.
 * When the connection drops it reconnects every second until stopped, then calls `onReconnect` so the
 * owner can look for work queued meanwhile. NOTIFY only speeds things up: owners poll as well.
 */
export class PgListener {
  private client?: Client;
  private reconnectTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly options: {
      url: string;
      channels: string[];
      onNotify: (channel: string, payload: string | undefined) => void;
      onReconnect?: () => void;
      /** Called when the connection drops (before the reconnects): notifications may be missed. */
      onLost?: () => void;
      logger: Logger;
      label: string;
      /** The connection's `application_name`, by which other processes can see it listens. */
      applicationName?: string;
    },
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }

  private reconnect(): void {
    if (this.stopped) return;
    this.reconnectTimer = setTimeout(() => {
      if (this.stopped) return;
      this.connect().then(
        () => this.options.onReconnect?.(),
        () => this.reconnect(),
      );
    }, 1000);
    this.reconnectTimer.unref();
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.options.url,
      application_name: this.options.applicationName,
    });
    client.on('notification', (msg) => this.options.onNotify(msg.channel, msg.payload));
    client.on('error', (err) => {
      if (this.client !== client) return; // a failed connect is retried by its caller
      this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.options.onLost?.();
      this.options.logger.warn(
        { err },
        `${this.options.label} LISTEN connection lost; polling until it is back`,
      );
      this.reconnect();
    });
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }
}
