import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * For machines without Redis (a new clone on a laptop): a Redis server of the few commands the
 * rate-limit storage sends, over the real protocol (RESP), so that two app instances still share
 * counters through the network. It runs the storage's one Lua script by recognising it, so the script
 * itself is only proven against a real Redis (CI has one: REDIS_URL or 127.0.0.1:6379).
 */
class FakeRedis {
  private readonly counters = new Map<string, { hits: number; expiresAt: number }>();

  handle(args: string[]): string {
    const command = (args[0] ?? '').toUpperCase();
    switch (command) {
      case 'PING':
        return '+PONG\r\n';
      case 'CLIENT':
      case 'SELECT':
        return '+OK\r\n';
      case 'INFO':
        return bulk('# Server\r\nredis_version:7.0.0\r\nloading:0\r\n');
      case 'EVALSHA':
        return '-NOSCRIPT No matching script. Please use EVAL.\r\n';
      case 'EVAL':
        return this.throttleIncrement(args);
      default:
        return `-ERR unknown command '${command}'\r\n`;
    }
  }

  /** The semantics of the INCREMENT script of src/rate-limit/redis-throttler.storage.ts. */
  private throttleIncrement(args: string[]): string {
    const script = args[1] ?? '';
    if (!script.includes("redis.call('INCR', KEYS[1])")) return '-ERR unsupported script\r\n';
    const key = args[3];
    const ttl = Number(args[4]);
    const now = Date.now();
    let entry = this.counters.get(key);
    if (!entry || entry.expiresAt <= now) {
      entry = { hits: 0, expiresAt: now + ttl };
      this.counters.set(key, entry);
    }
    entry.hits += 1;
    return `*2\r\n:${entry.hits}\r\n:${entry.expiresAt - now}\r\n`;
  }
}

function bulk(text: string): string {
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** Parses complete RESP arrays of bulk strings from `buffer`; returns them and the unread rest. */
function parseCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let offset = 0;
  outer: while (offset < buffer.length) {
    let pos = offset;
    const line = (): string | undefined => {
      const end = buffer.indexOf('\r\n', pos);
      if (end < 0) return undefined;
      const text = buffer.toString('utf8', pos, end);
      pos = end + 2;
      return text;
    };
    const header = line();
    if (header === undefined) break;
    if (!header.startsWith('*')) throw new Error(`unexpected RESP input: ${header}`);
    const args: string[] = [];
    for (let i = 0; i < Number(header.slice(1)); i++) {
      const size = line();
      if (size === undefined) break outer;
      const length = Number(size.slice(1));
      if (pos + length + 2 > buffer.length) break outer;
      args.push(buffer.toString('utf8', pos, pos + length));
      pos += length + 2;
    }
    commands.push(args);
    offset = pos;
  }
  return { commands, rest: buffer.subarray(offset) };
}

export interface RedisForTests {
  url: string;
  close(): Promise<void>;
}

async function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.setTimeout(500);
    socket.once('data', (chunk: Buffer) => {
      socket.destroy();
      resolve(chunk.toString().startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * `REDIS_URL` when set; otherwise the Redis on 127.0.0.1:6379 when one answers; otherwise a fake one
 * on a free loopback port.
 */
export async function redisForTests(): Promise<RedisForTests> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, close: async () => undefined };
  if (await answers('127.0.0.1', 6379)) {
    return { url: 'redis://127.0.0.1:6379', close: async () => undefined };
  }
  const fake = new FakeRedis();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { commands, rest } = parseCommands(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const args of commands) {
        if ((args[0] ?? '').toUpperCase() === 'QUIT') {
          socket.end('+OK\r\n');
          return;
        }
        socket.write(fake.handle(args));
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
