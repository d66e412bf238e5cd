import { MAX_REGEX_WORK, RE2_SYNTAX } from '../common/linear-regex';
import { checkGuardrails, JsonAnswerError, parseJsonAnswer } from './guardrails';
import {
  MAX_SCHEMA_ERRORS,
  MAX_SCHEMA_VISITS,
  SchemaCheckError,
  schemaPatternProblems,
  validateJsonSchema,
} from './json-schema';

/** Nested quantifiers that backtrack for minutes on V8 against these answers, which they miss. */
const CATASTROPHIC: [string, string][] = [
  ['(a+)+$', `${'a'.repeat(5000)}!`],
  ['(a|aa)+$', `${'a'.repeat(5000)}!`],
  ['(.*a){20}', `${'b'.repeat(5000)}${'a'.repeat(19)}`],
  ['^(\\w+\\s?)*$', `${'word '.repeat(1000)}!`],
];

describe('checkGuardrails', () => {
  it('passes everything when the step has no guardrails', () => {
    expect(checkGuardrails('anything', undefined, undefined)).toBeNull();
    expect(checkGuardrails('anything', undefined, {})).toBeNull();
  });

  it('counts characters, not UTF-16 units, for maxOutputChars', () => {
    expect(checkGuardrails('😀😀😀', undefined, { maxOutputChars: 3 })).toBeNull();
    expect(checkGuardrails('abcd', undefined, { maxOutputChars: 3 })).toEqual({
      guardrail: 'maxOutputChars',
      reason: 'output has 4 characters, more than the 3 allowed',
    });
  });

  it('rejects an answer matching a blocked pattern', () => {
    expect(
      checkGuardrails('call me at 555-1234', undefined, { blockedPatterns: ['\\d{3}-\\d{4}'] }),
    ).toEqual({
      guardrail: 'blockedPatterns',
      reason: 'output matches the blocked pattern "\\\\d{3}-\\\\d{4}"',
    });
  });

  it('requires every required pattern', () => {
    const g = { requiredPatterns: ['^Dear ', 'Regards'] };
    expect(checkGuardrails('Dear Ann, ... Regards', undefined, g)).toBeNull();
    expect(checkGuardrails('Dear Ann, bye', undefined, g)).toEqual({
      guardrail: 'requiredPatterns',
      reason: 'output does not match the required pattern "Regards"',
    });
  });

  it.each(CATASTROPHIC)(
    'answers the catastrophic blocked and required pattern %j in linear time',
    (pattern, text) => {
      expect(checkGuardrails(text, undefined, { blockedPatterns: [pattern] })).toBeNull();
      expect(checkGuardrails(text, undefined, { requiredPatterns: [pattern] })).toEqual({
        guardrail: 'requiredPatterns',
        reason: `output does not match the required pattern ${JSON.stringify(pattern)}`,
      });
    },
  );

  it('treats a pattern it cannot check (stored before RE2, over the budget) as a violation', () => {
    expect(checkGuardrails('ab', undefined, { blockedPatterns: ['a(?=b)'] })).toEqual({
      guardrail: 'blockedPatterns',
      reason: expect.stringMatching(
        /^the pattern "a\(\?=b\)" could not be checked: lookahead `\(\?=` is not supported/,
      ) as unknown,
    });
    expect(checkGuardrails('ab', undefined, { requiredPatterns: ['(a)\\1'] })?.reason).toMatch(
      /could not be checked: backreference/,
    );
    // Fifty patterns of 100 instructions over a text that makes twice the budget of one answer.
    const patterns = Array.from({ length: 50 }, (_, i) => `z\\w{98}${i}`);
    const text = 'a'.repeat(Math.ceil((2 * MAX_REGEX_WORK) / (50 * 100)));
    expect(checkGuardrails(text, undefined, { blockedPatterns: patterns })).toEqual({
      guardrail: 'blockedPatterns',
      reason: expect.stringMatching(
        /could not be checked: .* is too costly to run against/,
      ) as unknown,
    });
  });

  it('checks the length before the patterns', () => {
    expect(
      checkGuardrails('forbidden', undefined, { maxOutputChars: 3, blockedPatterns: ['forbidden'] })
        ?.guardrail,
    ).toBe('maxOutputChars');
  });

  it('validates the parsed JSON answer against jsonSchema', () => {
    const jsonSchema = {
      type: 'object',
      required: ['title'],
      properties: { title: { type: 'string', minLength: 1 } },
    };
    expect(checkGuardrails('{"title":"Hi"}', { title: 'Hi' }, { jsonSchema })).toBeNull();
    expect(checkGuardrails('{"title":3}', { title: 3 }, { jsonSchema })).toEqual({
      guardrail: 'jsonSchema',
      reason: 'output does not match jsonSchema: $.title: must be string',
    });
  });

  it('parses a text answer for jsonSchema and reports one that is not JSON', () => {
    const jsonSchema = { type: 'object' };
    expect(checkGuardrails('{"a":1}', undefined, { jsonSchema })).toBeNull();
    expect(checkGuardrails('not json', undefined, { jsonSchema })?.reason).toMatch(
      /^response is not valid JSON/,
    );
  });
});

describe('parseJsonAnswer', () => {
  it('accepts plain JSON and JSON inside one Markdown fence', () => {
    expect(parseJsonAnswer(' {"a":1} ')).toEqual({ a: 1 });
    expect(parseJsonAnswer('```json\n{"a":[1,2]}\n```')).toEqual({ a: [1, 2] });
  });

  it('keeps the fence rules: a language tag, blank lines, the last fence at the very end', () => {
    expect(parseJsonAnswer('```\n[1]\n```')).toEqual([1]);
    expect(parseJsonAnswer('```json \n\n{"a":1}```')).toEqual({ a: 1 });
    expect(() => parseJsonAnswer('```json x\n{"a":1}\n```')).toThrow(JsonAnswerError);
    expect(() => parseJsonAnswer('```\n{"a":1}\n``` and more')).toThrow(JsonAnswerError);
    expect(() => parseJsonAnswer('```{"a":1}```')).toThrow(JsonAnswerError);
  });

  it.each([
    ['newlines after an opening fence', `\`\`\`${'\n'.repeat(1_000_000)}x`],
    ['blank lines inside a fence that never closes', `\`\`\`json\n${'\n \n'.repeat(400_000)}1`],
    ['mixed whitespace after an opening fence', `\`\`\`${'\t\n\r'.repeat(400_000)}x`],
  ])('reads %s in linear time', (_what, text) => {
    // The former fence pattern, ^```[\w-]*\s*\n([\s\S]*?)\n?```$, was quadratic on these: about
    // 130 ms for 20 000 characters, so minutes for these million.
    expect(() => parseJsonAnswer(text)).toThrow(JsonAnswerError);
  });

  it('throws a JsonAnswerError for anything else', () => {
    expect(() => parseJsonAnswer('Sure! {"a":1}')).toThrow(JsonAnswerError);
  });
});

describe('validateJsonSchema', () => {
  it('checks types, with integers being numbers', () => {
    expect(validateJsonSchema(3, { type: 'number' })).toEqual([]);
    expect(validateJsonSchema(3.5, { type: 'integer' })).toEqual(['$: must be integer']);
    expect(validateJsonSchema(null, { type: ['string', 'null'] })).toEqual([]);
  });

  it('names the path of nested violations', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
        'odd key': { enum: ['a', 'b'] },
      },
      additionalProperties: false,
    };
    expect(
      validateJsonSchema({ tags: ['x', 1, 'y'], 'odd key': 'c', extra: true }, schema),
    ).toEqual([
      '$.tags: must have at most 2 items',
      '$.tags[1]: must be string',
      '$["odd key"]: must be one of "a", "b"',
      '$: must not have property "extra"',
    ]);
  });

  it('supports bounds, patterns, const and combinators', () => {
    expect(validateJsonSchema(5, { minimum: 6 })).toEqual(['$: must be >= 6']);
    expect(validateJsonSchema(5, { exclusiveMaximum: 5 })).toEqual(['$: must be < 5']);
    expect(validateJsonSchema('abc', { pattern: '^a', maxLength: 2 })).toEqual([
      '$: must have at most 2 characters',
    ]);
    expect(validateJsonSchema('x', { const: 'y' })).toEqual(['$: must be "y"']);
    expect(validateJsonSchema(1, { anyOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual([]);
    expect(validateJsonSchema(1, { oneOf: [{ type: 'number' }, { type: 'integer' }] })).toEqual([
      '$: must match exactly one schema of oneOf (2)',
    ]);
    expect(validateJsonSchema('a', { not: { type: 'string' } })).toEqual([
      '$: must not match the schema of not',
    ]);
  });

  it.each(CATASTROPHIC)('matches the catastrophic pattern %j in linear time', (pattern, text) => {
    const schema = { type: 'array', items: { type: 'string', pattern } };
    expect(validateJsonSchema([text, text], schema)).toEqual([
      `$[0]: must match ${JSON.stringify(pattern)}`,
      `$[1]: must match ${JSON.stringify(pattern)}`,
    ]);
  });

  it('fails the whole check on a pattern it cannot run, naming the path of the value', () => {
    expect(() =>
      validateJsonSchema({ a: 'x' }, { properties: { a: { pattern: '(?<!y)x' } } }),
    ).toThrow(
      new SchemaCheckError(
        `$.a: schema pattern "(?<!y)x" could not be checked: lookbehind \`(?<!\` is not supported: ${RE2_SYNTAX}`,
      ),
    );
    // Inside not or anyOf a pattern that cannot run must not count as a mismatch, so as a pass.
    for (const jsonSchema of [
      { not: { pattern: '(?<!y)x' } },
      { anyOf: [{ pattern: '(?=x)' }, { type: 'number' }] },
    ]) {
      expect(checkGuardrails('"x"', undefined, { jsonSchema })).toEqual({
        guardrail: 'jsonSchema',
        reason: expect.stringMatching(
          /^output could not be checked against jsonSchema: \$: schema pattern .* could not be checked: look/,
        ) as unknown,
      });
    }
  });

  it(`gives up past ${MAX_SCHEMA_VISITS} steps, and the guardrail is broken, not passed`, () => {
    // 3000 schemas for each of 3000 items: nine million comparisons, seconds on the event loop.
    const jsonSchema = {
      type: 'array',
      items: { anyOf: Array.from({ length: 3000 }, (_, i) => ({ const: `v${i}` })) },
    };
    const answer = Array(3000).fill('v2999');
    expect(() => validateJsonSchema(answer, jsonSchema)).toThrow(SchemaCheckError);
    expect(checkGuardrails(JSON.stringify(answer), undefined, { jsonSchema })).toEqual({
      guardrail: 'jsonSchema',
      reason:
        `output could not be checked against jsonSchema: checking it takes more than ` +
        `${MAX_SCHEMA_VISITS} steps (schema nodes x answer nodes)`,
    });
    // The same schema against a short answer is checked.
    expect(validateJsonSchema(answer.slice(0, 10), jsonSchema)).toEqual([]);
  });

  it('counts enum and const comparisons of big values against the budget', () => {
    const big = Array.from({ length: 1000 }, (_, i) => ({ k: i }));
    const jsonSchema = { enum: Array.from({ length: 300 }, () => big) };
    const answer = [...big.slice(0, 999), { k: -1 }];
    expect(() => validateJsonSchema(answer, jsonSchema)).toThrow(/more than \d+ steps/);
    expect(validateJsonSchema(answer, { const: big })).toEqual([
      expect.stringMatching(/^\$: must be \[/) as unknown,
    ]);
  });

  it(`stops collecting at ${MAX_SCHEMA_ERRORS} violations, and never spreads them`, () => {
    // Half a million violations: spread into push at once they overflowed the stack (RangeError).
    const answer = { list: Array<number>(500_000).fill(1) };
    const jsonSchema = { properties: { list: { items: { type: 'string' } } } };
    const errors = validateJsonSchema(answer, jsonSchema);
    expect(errors).toHaveLength(MAX_SCHEMA_ERRORS);
    expect(errors[9]).toBe('$.list[9]: must be string');
    expect(checkGuardrails(JSON.stringify(answer), undefined, { jsonSchema })?.reason).toMatch(
      /^output does not match jsonSchema: \$\.list\[0\]: must be string; .*\$\.list\[4\]: must be string \(and at least 5 more\)$/,
    );
    expect(
      checkGuardrails('[1, 2, 3, 4, 5, 6, 7]', undefined, {
        jsonSchema: { items: { type: 'string' } },
      })?.reason,
    ).toMatch(/\$\[4\]: must be string \(and 2 more\)$/);
  });
});

describe('schemaPatternProblems', () => {
  it('finds every pattern validateJsonSchema could run that RE2 cannot, with its path', () => {
    const schema = {
      pattern: 'a++',
      properties: { ok: { pattern: '^\\d+$' }, 'odd key': { pattern: '(a)\\1' } },
      items: { allOf: [{}, { pattern: '(?=x)' }] },
      additionalProperties: { anyOf: [{ not: { pattern: '(?<=x)' } }] },
      oneOf: [{ items: { pattern: '\\u0041' } }],
      $defs: { never: { pattern: '(?=x)' } },
    };
    expect(schemaPatternProblems(schema, 'jsonSchema').map((p) => p.path)).toEqual([
      'jsonSchema.pattern',
      'jsonSchema.properties["odd key"].pattern',
      'jsonSchema.items.allOf[1].pattern',
      'jsonSchema.additionalProperties.anyOf[0].not.pattern',
      'jsonSchema.oneOf[0].items.pattern',
    ]);
    expect(schemaPatternProblems({ properties: { a: { pattern: '\\w+' } } }, 's')).toEqual([]);
    expect(schemaPatternProblems(undefined, 's')).toEqual([]);
  });
});
