import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ApiKeyAuthService } from './api-key-auth.service';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [IdempotencyModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeyAuthService, ApiKeysRepository],
  exports: [ApiKeyAuthService, ApiKeysService],
})
export class ApiKeysModule {}
