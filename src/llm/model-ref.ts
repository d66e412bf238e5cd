export type ProviderName = 'openai' | 'anthropic';

/**
 * `provider:model` addressing (design §5): `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5`; a bare
 * name uses `openai`. Only the known provider names count as a prefix, so that model ids with colons
 * (Ollama's `llama3.1:8b`) stay whole and go to the OpenAI-compatible provider.
 */
export function parseModelRef(ref: string): { provider: ProviderName; modelId: string } {
  const colon = ref.indexOf(':');
  if (colon > 0) {
    const prefix = ref.slice(0, colon);
    if (prefix === 'openai' || prefix === 'anthropic') {
      return { provider: prefix, modelId: ref.slice(colon + 1) };
    }
  }
  return { provider: 'openai', modelId: ref };
}
