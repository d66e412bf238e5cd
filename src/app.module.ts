import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyGuard } from './api-keys/api-key.guard';
import { CachedKeyInterceptor } from './api-keys/cached-key.interceptor';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { ApprovalsModule } from './approvals/approvals.module';
import { BudgetsModule } from './budgets/budgets.module';
import { CostsModule } from './costs/costs.module';
import { LlmModule } from './llm/llm.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { DefinitionsModule } from './definitions/definitions.module';
import { ExecutorModule } from './executor/executor.module';
import { HandlersModule } from './handlers/handlers.module';
import { RunsModule } from './runs/runs.module';
import { SchedulesModule } from './schedules/schedules.module';
import { BUILTIN_STEP_TYPES } from './step-types/builtin-step-types';
import { StepTypesModule } from './steps/step-types.module';
import { DatabaseModule } from './common/database';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { EnvelopeExceptionFilter } from './common/exception.filter';
import { createValidationPipe } from './common/validation';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { HealthModule } from './health/health.module';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { WorkspaceThrottlerGuard } from './rate-limit/workspace-throttler.guard';
import { SessionsModule } from './sessions/sessions.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Global()
@Module({})
class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}

@Module({})
export class AppModule {
  /**
   * The whole service for one validated configuration (the database URL must be resolved).
   * `extraImports` lets an embedding application add modules, e.g. its own task handlers.
   */
  static forRoot(config: AppConfig, extraImports: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ScheduleModule.forRoot(),
        // TypeORM holds the connection pool (and runs the migrations, see database/migrations.ts); no
        // entities: the service's tables are reached with plain SQL through Database.
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.databaseUrl,
          synchronize: false,
          migrationsRun: false,
          // Room for the executor's in-flight steps plus API traffic. The connect timeout also bounds
          // the wait for a free connection: while the database is unreachable a request fails (503)
          // after at most that long instead of queueing behind connections that will never come.
          extra: {
            max: config.executor.concurrency + 10,
            connectionTimeoutMillis: config.databaseConnectTimeoutMs,
          },
        }),
        DatabaseModule,
        MetricsModule,
        RateLimitModule,
        HealthModule,
        WorkspacesModule,
        ApiKeysModule,
        DefinitionsModule,
        RunsModule,
        SchedulesModule,
        HandlersModule,
        StepTypesModule.register(BUILTIN_STEP_TYPES),
        ExecutorModule,
        LlmModule,
        ApprovalsModule,
        CostsModule,
        BudgetsModule,
        WebhooksModule,
        SessionsModule,
        IdempotencyModule,
        ...(extraImports ?? []),
      ],
      providers: [
        // Order matters: the throttler first (it limits unauthenticated callers too), then auth.
        { provide: APP_GUARD, useClass: WorkspaceThrottlerGuard },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
        // Interceptors run in this order, the first outermost: a replayed Idempotency-Key answer is
        // the stored envelope as sent, which the envelope interceptor must not wrap again.
        { provide: APP_INTERCEPTOR, useExisting: IdempotencyInterceptor },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        // Innermost: it sees the route's answer, and every error of validation and of the handler.
        { provide: APP_INTERCEPTOR, useClass: CachedKeyInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
