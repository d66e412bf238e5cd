import { Module } from '@nestjs/common';
import { LlmPricing } from './pricing';
import { LlmProviders } from './providers';

/** LLM providers and pricing; the `llm` step type itself is registered by its descriptor. */
@Module({
  providers: [LlmProviders, LlmPricing],
  exports: [LlmProviders, LlmPricing],
})
export class LlmModule {}
