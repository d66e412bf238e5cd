import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * How the server goes away: `refuse` resets every open connection and stops listening (the host is
 * up, the database is down: refused connections); `silence` resets every open connection and then
 * accepts new ones without ever answering (a network that drops packets: only timeouts tell).
 */
export type CutMode = 'refuse' | 'silence';

/**
 * A loopback TCP proxy in front of a server (the test PostgreSQL), so that a test can take the server
 * away from a service process and give it back without touching the server itself.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  cut(mode?: CutMode): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let server: Server | undefined;
  let port = 0;
  let silent = false;

  const listen = async (): Promise<void> => {
    const srv = createServer((client) => {
      track(client);
      if (silent) return;
      const upstream = connect(target.port, target.host);
      track(upstream);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    const address = srv.address();
    port = typeof address === 'object' && address ? address.port : port;
    server = srv;
  };

  const resetAll = (): void => {
    for (const socket of sockets) socket.resetAndDestroy();
  };

  const stopListening = async (): Promise<void> => {
    const srv = server;
    server = undefined;
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    through: (url: string) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: async (mode: CutMode = 'refuse') => {
      silent = mode === 'silence';
      resetAll();
      if (mode === 'refuse') await stopListening();
    },
    restore: async () => {
      silent = false;
      resetAll();
      if (!server) await listen();
    },
    close: async () => {
      resetAll();
      await stopListening();
    },
  };
}
