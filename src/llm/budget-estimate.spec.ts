import { inputTokenBound, toolsBytes } from './budget-estimate';
import type { LlmStep } from '../steps/step-definition';

describe('budget estimates', () => {
  const messages = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Summarise: thé vert' },
  ];

  it('bounds input tokens by the UTF-8 bytes of the messages as JSON', () => {
    const json = JSON.stringify(messages);
    // é is two bytes in UTF-8.
    expect(inputTokenBound(messages, 0)).toBe(json.length + 1);
    expect(inputTokenBound(messages, 100)).toBe(json.length + 1 + 100);
  });

  it('is never below the text itself, one token per character at most', () => {
    const text = 'word '.repeat(1000);
    expect(inputTokenBound([{ role: 'user', content: text }], 0)).toBeGreaterThan(text.length);
  });

  it('counts the tool definitions a request carries', () => {
    const step = {
      type: 'llm',
      name: 's',
      model: 'm',
      messages: [],
      tools: [
        {
          name: 'lookup',
          description: 'Finds it',
          handler: 'noop',
          parameters: { type: 'object' },
        },
      ],
    } as unknown as LlmStep;
    expect(toolsBytes(step)).toBe(
      JSON.stringify([{ name: 'lookup', description: 'Finds it', parameters: { type: 'object' } }])
        .length,
    );
    expect(toolsBytes({ ...step, tools: undefined })).toBe(0);
  });
});
