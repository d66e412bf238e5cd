import { Module } from '@nestjs/common';
import { KeyWriter } from './key-writer';
import { IdempotencyCleanupService } from './idempotency-cleanup.service';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';

/**
 * The Idempotency-Key header (README "Idempotent requests"). The application registers
 * `IdempotencyInterceptor` as its first global interceptor (app.module.ts); this module provides it
 * and the cleanup of expired keys.
 */
@Module({
  providers: [IdempotencyRepository, KeyWriter, IdempotencyInterceptor, IdempotencyCleanupService],
  exports: [IdempotencyInterceptor],
})
export class IdempotencyModule {}
