import type { LlmStep } from '../steps/step-definition';

/**
 * An upper bound of the input tokens of one provider request: the UTF-8 bytes of the messages as JSON
 * plus those of the tool definitions. Byte-level BPE tokenizers (OpenAI's, Anthropic's, Llama's) never
 * make more tokens than bytes, and the JSON's quotes and keys outweigh the few tokens a chat template
 * adds per message, so the bound holds for them; it is about four times the real count for English.
 */
export function inputTokenBound(messages: unknown, toolsBytes: number): number {
  return Buffer.byteLength(JSON.stringify(messages) ?? '', 'utf8') + toolsBytes;
}

/** The UTF-8 bytes of a step's tool definitions as JSON (name, description, parameters): 0 without. */
export function toolsBytes(step: LlmStep): number {
  if (!step.tools?.length) return 0;
  return Buffer.byteLength(
    JSON.stringify(
      step.tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
      })),
    ),
    'utf8',
  );
}
