import { Module } from '@nestjs/common';
import { AnswerCapture } from './answer-capture';
import { ClaimingLookup } from './claiming-lookup';
import { KeyWriter } from './key-writer';
import { IdempotencyCleanupService } from './idempotency-cleanup.service';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';

/**
 * The Idempotency-Key header (README "Idempotent requests"). The application registers
 * `IdempotencyInterceptor` as its first global interceptor (app.module.ts); this module provides it,
 * `ClaimingLookup` (the API-key lookup that also claims a keyed request's key, used by api-keys) and
 * the cleanup of expired keys.
 */
@Module({
  providers: [
    IdempotencyRepository,
    KeyWriter,
    AnswerCapture,
    ClaimingLookup,
    IdempotencyInterceptor,
    IdempotencyCleanupService,
  ],
  exports: [IdempotencyInterceptor, ClaimingLookup],
})
export class IdempotencyModule {}
