import { createAnthropic, type AnthropicProvider } from '@ai-sdk/anthropic';
import { createOpenAICompatible, type OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LanguageModel } from 'ai';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { parseModelRef, type ProviderName } from './model-ref';
import { providerErrorMessage } from './provider-errors';

export interface ResolvedModel {
  provider: ProviderName;
  /** The provider's model id (`gpt-4o-mini`, `claude-sonnet-4-5`, `llama3.1:8b`). */
  modelId: string;
  model: LanguageModel;
}

/** OpenAI's reasoning models refuse `max_tokens` and want `max_completion_tokens`. */
const OPENAI_REASONING_MODEL = /^(o\d|gpt-5)/;

/**
 * The two providers, built once from the configuration with the Vercel AI SDK: OpenAI-compatible
 * Chat Completions (`POST {OPENAI_BASE_URL}/chat/completions`: OpenAI, vLLM, Ollama, LiteLLM,
 * OpenRouter...) and the Anthropic Messages API (`POST {ANTHROPIC_BASE_URL}/v1/messages`).
 */
@Injectable()
export class LlmProviders {
  private readonly logger = new Logger(LlmProviders.name);
  private readonly openai: OpenAICompatibleProvider;
  private readonly anthropic: AnthropicProvider;
  /** Configured keys, removed from any error text a provider echoes back. */
  private readonly secrets: string[];

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.secrets = [config.openai.apiKey, config.anthropic.apiKey].filter((k): k is string => !!k);
    const isOpenAi = /^https:\/\/api\.openai\.com(\/|$)/.test(config.openai.baseUrl);
    this.openai = createOpenAICompatible({
      name: 'openai',
      baseURL: config.openai.baseUrl,
      apiKey: config.openai.apiKey,
      transformRequestBody: (body) => {
        if (!isOpenAi || body.max_tokens === undefined) return body;
        if (typeof body.model !== 'string' || !OPENAI_REASONING_MODEL.test(body.model)) return body;
        const { max_tokens: maxTokens, ...rest } = body;
        return { ...rest, max_completion_tokens: maxTokens as unknown };
      },
    });
    this.anthropic = createAnthropic({
      baseURL: `${config.anthropic.baseUrl}/v1`,
      apiKey: config.anthropic.apiKey,
    });
    // The SDK prints its warnings (unsupported settings...) to the console; keep them in our logs.
    (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = (options: {
      warnings: unknown[];
      provider: string;
      model: string;
    }) => {
      this.logger.debug(
        { warnings: options.warnings },
        `AI SDK warnings for ${options.provider}:${options.model}`,
      );
    };
  }

  /** What a tenant may see of a failed call: the provider's message, trimmed (provider-errors.ts). */
  describeError(err: unknown): string {
    return providerErrorMessage(err, this.secrets);
  }

  resolve(ref: string): ResolvedModel {
    const { provider, modelId } = parseModelRef(ref);
    const model =
      provider === 'anthropic' ? this.anthropic(modelId) : this.openai.chatModel(modelId);
    return { provider, modelId, model };
  }
}
