import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config';
import { bareModelName, exactCostUsd, LlmPricing, priceToDecimal, resolvePrice } from './pricing';

describe('bareModelName', () => {
  it('drops a known provider prefix', () => {
    expect(bareModelName('openai:gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(bareModelName('anthropic:claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
  });

  it('keeps colons that belong to the model name (Ollama tags)', () => {
    expect(bareModelName('llama3.1:8b')).toBe('llama3.1:8b');
    expect(bareModelName('openai:llama3.1:8b')).toBe('llama3.1:8b');
  });
});

describe('resolvePrice', () => {
  it('finds built-in prices by bare name, with or without the provider prefix', () => {
    expect(resolvePrice('gpt-4o-mini', {})).toEqual({
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
    });
    expect(resolvePrice('anthropic:claude-sonnet-4-5', {})).toEqual({
      inputPerMillion: 3,
      outputPerMillion: 15,
    });
  });

  it('prices dated snapshots like their family', () => {
    expect(resolvePrice('anthropic:claude-sonnet-4-5-20250929', {})?.inputPerMillion).toBe(3);
    expect(resolvePrice('gpt-4o-2024-08-06', {})?.outputPerMillion).toBe(10);
    expect(resolvePrice('claude-3-5-haiku-latest', {})?.inputPerMillion).toBe(0.8);
  });

  it('lets overrides win, the model string as written before the bare name', () => {
    const overrides = {
      'gpt-4o': { inputPerMillion: 1, outputPerMillion: 2 },
      'openai:gpt-4o': { inputPerMillion: 3, outputPerMillion: 4 },
    };
    expect(resolvePrice('openai:gpt-4o', overrides)).toEqual(overrides['openai:gpt-4o']);
    expect(resolvePrice('gpt-4o', overrides)).toEqual(overrides['gpt-4o']);
  });

  it('prices self-hosted models only through overrides', () => {
    expect(resolvePrice('llama3.1:8b', {})).toBeUndefined();
    expect(
      resolvePrice('llama3.1:8b', { 'llama3.1:8b': { inputPerMillion: 0, outputPerMillion: 0 } }),
    ).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
  });
});

describe('exactCostUsd', () => {
  it('computes without floating-point error', () => {
    // 0.1 + 0.2 style traps: 1234 * 0.15 / 1e6 + 567 * 0.6 / 1e6 = 0.0001851 + 0.0003402
    expect(exactCostUsd({ inputPerMillion: 0.15, outputPerMillion: 0.6 }, 1234, 567)).toBe(
      '0.0005253',
    );
    expect(exactCostUsd({ inputPerMillion: 3, outputPerMillion: 15 }, 1_000_000, 1_000_000)).toBe(
      '18',
    );
    expect(exactCostUsd({ inputPerMillion: 0.1, outputPerMillion: 0.2 }, 1, 1)).toBe('0.0000003');
  });

  it('is zero for zero tokens or free models', () => {
    expect(exactCostUsd({ inputPerMillion: 5, outputPerMillion: 25 }, 0, 0)).toBe('0');
    expect(exactCostUsd({ inputPerMillion: 0, outputPerMillion: 0 }, 100, 100)).toBe('0');
  });

  it('keeps prices with many decimals exact', () => {
    expect(priceToDecimal(0.000123456789)).toBe('0.000123456789');
    expect(exactCostUsd({ inputPerMillion: 0.000123456789, outputPerMillion: 0 }, 3, 0)).toBe(
      '0.000000000370370367',
    );
  });
});

describe('LlmPricing', () => {
  it('merges LLM_PRICING_JSON over the built-in table', () => {
    const pricing = new LlmPricing(
      loadConfig({
        LLM_PRICING_JSON: JSON.stringify({ 'gpt-4o': { inputPerMillion: 1, outputPerMillion: 1 } }),
      }),
    );
    expect(pricing.price('gpt-4o', 1_000_000, 0)).toEqual({
      inputPerMillion: '1',
      outputPerMillion: '1',
      costUsd: '1',
      known: true,
    });
    expect(pricing.price('gpt-4o-mini', 1_000_000, 0).costUsd).toBe('0.15');
  });

  it('prices an unknown model at 0 and warns once per model', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const pricing = new LlmPricing(loadConfig({}));
      expect(pricing.price('my-local-model', 10, 10)).toEqual({
        inputPerMillion: '0',
        outputPerMillion: '0',
        costUsd: '0',
        known: false,
      });
      pricing.price('my-local-model', 10, 10);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toContain('my-local-model');
    } finally {
      warn.mockRestore();
    }
  });
});
