import { Module } from '@nestjs/common';
import { ThrottlerModule, ThrottlerStorageService } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RedisThrottlerStorage } from './redis-throttler.storage';

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/** Counters in Redis when REDIS_URL is set (shared by replicas), in memory otherwise. */
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redisUrl
          ? new RedisThrottlerStorage(config.redisUrl)
          : new ThrottlerStorageService(),
    },
  ],
  exports: [RATE_LIMIT_STORAGE],
})
class RateLimitStorageModule {}

export const RateLimitModule = ThrottlerModule.forRootAsync({
  imports: [RateLimitStorageModule],
  inject: [APP_CONFIG, RATE_LIMIT_STORAGE],
  useFactory: (config: AppConfig, storage: RedisThrottlerStorage | ThrottlerStorageService) => ({
    throttlers: [{ name: 'default', ttl: config.rateLimit.windowMs, limit: config.rateLimit.max }],
    storage,
    skipIf: () => config.rateLimit.max === 0,
  }),
});
