import { Module } from '@nestjs/common';
import { CostsModule } from '../costs/costs.module';
import { HandlersModule } from '../handlers/handlers.module';
import { LlmStepExecutor } from './llm.step';
import { LlmPricing } from './pricing';
import { LlmProviders } from './providers';

/** The `llm` step type (found by the executor through its decorator), its providers and pricing. */
@Module({
  imports: [HandlersModule, CostsModule],
  providers: [LlmProviders, LlmPricing, LlmStepExecutor],
  exports: [LlmPricing],
})
export class LlmModule {}
