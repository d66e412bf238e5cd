import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';

/**
 * Fixed-window counters in Redis, shared by every replica. One round trip: the script increments the
 * window's counter, starts its expiry on the first hit, and reports hits and time left.
 */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }
`;

/** How long start-up waits for the first Redis connection before serving with local counters. */
const CONNECT_WAIT_MS = 1000;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * While Redis cannot be reached, each process counts in memory instead: the limit still holds per
 * replica, and an outage of the counter store never turns into failed API requests. Commands are not
 * queued while disconnected, so a request never waits for Redis to come back.
 */
export class RedisThrottlerStorage
  implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown
{
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly fallback = new ThrottlerStorageService();
  private reachable: boolean | undefined;
  private firstConnection: Promise<void> | undefined;

  constructor(url: string) {
    this.redis = new Redis(url, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 1, lua: INCREMENT });
    // Log changes of reachability only: ioredis reports every failed reconnection attempt.
    this.redis.on('ready', () => {
      if (this.reachable === false) this.logger.log('Redis is reachable again: shared counters');
      this.reachable = true;
    });
    this.redis.on('error', (err: Error) => {
      if (this.reachable !== false) {
        this.logger.warn(
          { err },
          'Redis is unreachable: rate-limit counters fall back to this process',
        );
      }
      this.reachable = false;
    });
  }

  /** Nest calls this once per module that lists the instance (two of them): wait only once. */
  onModuleInit(): Promise<void> {
    this.firstConnection ??= this.waitForFirstConnection();
    return this.firstConnection;
  }

  private async waitForFirstConnection(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_WAIT_MS);
      this.redis.once('ready', done);
    });
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const redisKey = `ratelimit:${throttlerName}:${key}`;
    let result: [number, number];
    try {
      result = await (
        this.redis as unknown as {
          throttleIncrement(k: string, ttlMs: number): Promise<[number, number]>;
        }
      ).throttleIncrement(redisKey, ttl);
    } catch {
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
    const [hits, pttl] = result;
    const seconds = Math.max(1, Math.ceil(pttl / 1000));
    const isBlocked = hits > limit;
    return {
      totalHits: hits,
      timeToExpire: seconds,
      isBlocked,
      timeToBlockExpire: isBlocked ? seconds : 0,
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.fallback.onApplicationShutdown();
    this.redis.disconnect();
  }
}
