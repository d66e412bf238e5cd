import {
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { ExpressionSandbox } from './expression-sandbox';

/**
 * The process's one expression sandbox as a Nest provider: its workers start (warm) at boot where the
 * executor runs, at the first evaluation elsewhere (an API-only process evaluates nothing), and are
 * killed at shutdown. Shutdown comes after the executor's drain (`beforeApplicationShutdown`), so the
 * steps still in flight finish their evaluations first.
 */
@Injectable()
export class ExpressionSandboxService
  extends ExpressionSandbox
  implements OnModuleInit, OnApplicationShutdown
{
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super(config.expressions);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.executor.enabled) await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

@Module({
  providers: [ExpressionSandboxService],
  exports: [ExpressionSandboxService],
})
export class ExpressionsModule {}
