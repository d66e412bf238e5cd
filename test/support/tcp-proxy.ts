import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a server (the test PostgreSQL), so that a test can take the server
 * away from a service process and give it back: `cut()` stops listening and destroys every open
 * connection (what the service sees when the database host goes down: resets, then refused
 * connections), `restore()` listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  cut(): Promise<void>;
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

  const listen = async (): Promise<void> => {
    const srv = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
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

  const stop = async (): Promise<void> => {
    const srv = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
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
    cut: stop,
    restore: listen,
    close: stop,
  };
}
