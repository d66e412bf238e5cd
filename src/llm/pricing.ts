import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type ModelPrice } from '../config/app-config';
import { parseModelRef } from './model-ref';

/**
 * List prices of well-known models, USD per million tokens (standard tier, no caching or batch
 * discounts). Keys are provider model ids without the `provider:` prefix. LLM_PRICING_JSON overrides
 * or extends this table; see `resolvePrice` for the lookup order.
 */
export const BUILT_IN_PRICING: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5.1': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-4-turbo': { inputPerMillion: 10, outputPerMillion: 30 },
  'gpt-3.5-turbo': { inputPerMillion: 0.5, outputPerMillion: 1.5 },
  o1: { inputPerMillion: 15, outputPerMillion: 60 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o3-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  // Anthropic
  'claude-opus-4-6': { inputPerMillion: 5, outputPerMillion: 25 },
  'claude-opus-4-5': { inputPerMillion: 5, outputPerMillion: 25 },
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-opus-4-0': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-opus-4': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-sonnet-4-6': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-sonnet-4-0': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-sonnet-4': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'claude-3-7-sonnet': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-3-5-sonnet': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-3-5-haiku': { inputPerMillion: 0.8, outputPerMillion: 4 },
  'claude-3-opus': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-3-haiku': { inputPerMillion: 0.25, outputPerMillion: 1.25 },
};

/** `-2024-08-06`, `-20250929` or `-latest`: snapshot suffixes that keep the family's price. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** `anthropic:claude-sonnet-4-5` -> `claude-sonnet-4-5`; other strings (`llama3.1:8b`) unchanged. */
export function bareModelName(model: string): string {
  return parseModelRef(model).modelId;
}

/**
 * The price of a model as written in a step. Overrides (LLM_PRICING_JSON) win over the built-in table;
 * in each, the model string as written is looked up first (`anthropic:claude-sonnet-4-5`,
 * `llama3.1:8b`), then the bare name (`claude-sonnet-4-5`), then the bare name without a snapshot
 * suffix (`gpt-4o-2024-08-06` -> `gpt-4o`). Undefined when no entry matches.
 */
export function resolvePrice(
  model: string,
  overrides: Readonly<Record<string, ModelPrice>>,
): ModelPrice | undefined {
  const bare = bareModelName(model);
  const candidates = [model, bare, bare.replace(SNAPSHOT_SUFFIX, '')];
  for (const table of [overrides, BUILT_IN_PRICING]) {
    for (const key of candidates) {
      if (Object.prototype.hasOwnProperty.call(table, key)) return table[key];
    }
  }
  return undefined;
}

/** Decimal digits kept from a configured price: far below a millionth of a cent per token. */
const PRICE_SCALE_DIGITS = 12;

/** A non-negative price as an exact decimal string (`0.15`, `1.25`), at most 12 decimals. */
export function priceToDecimal(price: number): string {
  if (!Number.isFinite(price) || price < 0) throw new RangeError(`invalid price ${price}`);
  return trimDecimal(price.toFixed(PRICE_SCALE_DIGITS));
}

function trimDecimal(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

function decimalToScaled(decimal: string, digits: number): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole + frac.padEnd(digits, '0').slice(0, digits));
}

/**
 * (inputTokens * inputPerMillion + outputTokens * outputPerMillion) / 1e6 as an exact decimal string,
 * with the same arithmetic the database applies to the stored prices (numeric, no rounding).
 */
export function exactCostUsd(price: ModelPrice, inputTokens: number, outputTokens: number): string {
  const inScaled = decimalToScaled(priceToDecimal(price.inputPerMillion), PRICE_SCALE_DIGITS);
  const outScaled = decimalToScaled(priceToDecimal(price.outputPerMillion), PRICE_SCALE_DIGITS);
  const total = BigInt(inputTokens) * inScaled + BigInt(outputTokens) * outScaled;
  // total is USD * 1e6 (per million) * 1e12 (price scale): 18 decimal places.
  const digits = PRICE_SCALE_DIGITS + 6;
  const s = total.toString().padStart(digits + 1, '0');
  return trimDecimal(`${s.slice(0, -digits)}.${s.slice(-digits)}`);
}

export interface PricedCall {
  /** Exact decimal strings, as stored. */
  inputPerMillion: string;
  outputPerMillion: string;
  costUsd: string;
  /** False when the model is in no table: the call costs 0. */
  known: boolean;
}

/** The pricing table of this process: built-in prices merged with LLM_PRICING_JSON. */
@Injectable()
export class LlmPricing {
  private readonly logger = new Logger(LlmPricing.name);
  private readonly warned = new Set<string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  price(model: string, inputTokens: number, outputTokens: number): PricedCall {
    const price = resolvePrice(model, this.config.llmPricing);
    if (!price) {
      if (!this.warned.has(model)) {
        this.warned.add(model);
        this.logger.warn(
          `no price known for model "${model}": its calls are recorded at cost 0 ` +
            '(add it to LLM_PRICING_JSON)',
        );
      }
      return { inputPerMillion: '0', outputPerMillion: '0', costUsd: '0', known: false };
    }
    return {
      inputPerMillion: priceToDecimal(price.inputPerMillion),
      outputPerMillion: priceToDecimal(price.outputPerMillion),
      costUsd: exactCostUsd(price, inputTokens, outputTokens),
      known: true,
    };
  }
}
