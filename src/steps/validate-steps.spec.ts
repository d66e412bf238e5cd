import type { AppConfig } from '../config/app-config';
import { BUILTIN_STEP_TYPES } from '../step-types/builtin-step-types';
import { validateSteps } from './validate-steps';

type Step = Record<string, unknown>;

const task = (name = 'a', extra: Step = {}): Step => ({
  type: 'task',
  name,
  handler: 'noop',
  ...extra,
});
const llm = (extra: Step = {}): Step => ({
  type: 'llm',
  name: 'ask',
  model: 'openai:gpt-4o-mini',
  messages: [{ role: 'user', content: 'Summarise {{text}}' }],
  ...extra,
});

function fieldsOf(steps: unknown[]): string[] {
  return [...new Set(validateSteps(steps, BUILTIN_STEP_TYPES).errors.map((e) => e.field))];
}

function messageOf(steps: unknown[], field: string): string {
  const found = validateSteps(steps, BUILTIN_STEP_TYPES).errors.find((e) => e.field === field);
  if (!found) throw new Error(`no error for ${field}`);
  return found.message;
}

describe('validateSteps', () => {
  it('accepts one valid step of every type and returns the steps unchanged', () => {
    const steps: Step[] = [
      task('prepare', { handler: 'transform', config: { expression: '{"n": 1}' }, outputKey: 'p' }),
      { type: 'wait', name: 'pause', durationMs: 0 },
      { type: 'wait', name: 'until-date', until: '2030-01-01T00:00:00.000Z' },
      { type: 'wait', name: 'until-placeholder', until: '{{p.when}}' },
      { type: 'wait', name: 'until-resumed' },
      { type: 'condition', name: 'check', expression: 'p.n > 0', then: 'ask', else: 'prepare' },
      { type: 'external_event', name: 'signal', signalType: 'paid', timeoutMs: 60000 },
      llm({
        temperature: 0.2,
        maxTokens: 500,
        fallbackModels: ['anthropic:claude-sonnet-4-5'],
        tools: [{ name: 'lookup', handler: 'noop', parameters: { type: 'object' } }],
        guardrails: { blockedPatterns: ['^secret'], requiredPatterns: ['\\d+'] },
        responseFormat: 'json',
        retry: { maxAttempts: 20, initialDelayMs: 0, backoffMultiplier: 1.5, maxDelayMs: 10 },
      }),
      { type: 'approval', name: 'review', contentKey: 'ask.text', regenerateFrom: 'ask' },
    ];
    const result = validateSteps(steps, BUILTIN_STEP_TYPES);
    expect(result.errors).toEqual([]);
    expect(result.steps).toEqual(steps);
  });

  it('names the field of the offending step by index (steps[2].handler)', () => {
    expect(fieldsOf([task('a'), task('b'), { type: 'task', name: 'c' }])).toEqual([
      'steps[2].handler',
    ]);
  });

  it('rejects a step that is not an object', () => {
    expect(fieldsOf([task('a'), 'b', null, []])).toEqual(['steps[1]', 'steps[2]', 'steps[3]']);
  });

  it('rejects an unknown or missing type, listing the types', () => {
    expect(fieldsOf([{ type: 'sleep', name: 'a' }, { name: 'b' }])).toEqual([
      'steps[0].type',
      'steps[1].type',
    ]);
    expect(messageOf([{ type: 'sleep', name: 'a' }], 'steps[0].type')).toBe(
      'must be one of task, wait, condition, external_event, llm, approval, workflow, map',
    );
  });

  it('rejects an unknown field, naming it, at the step and in nested objects', () => {
    expect(fieldsOf([task('a', { durationMs: 5 })])).toEqual(['steps[0].durationMs']);
    expect(messageOf([task('a', { durationMs: 5 })], 'steps[0].durationMs')).toBe('is not allowed');
    expect(fieldsOf([task('a', { retry: { attempts: 2 } })])).toEqual(['steps[0].retry.attempts']);
    expect(fieldsOf([llm({ messages: [{ role: 'user', content: 'x', name: 'bob' }] })])).toEqual([
      'steps[0].messages[0].name',
    ]);
  });

  it('requires a name of 1-100 characters', () => {
    expect(fieldsOf([{ type: 'task', handler: 'noop' }])).toEqual(['steps[0].name']);
    expect(fieldsOf([task('')])).toEqual(['steps[0].name']);
    expect(fieldsOf([task('n'.repeat(100))])).toEqual([]);
    expect(fieldsOf([task('n'.repeat(101))])).toEqual(['steps[0].name']);
  });

  it('rejects duplicate step names on the later step', () => {
    expect(fieldsOf([task('a'), task('b'), task('a')])).toEqual(['steps[2].name']);
    expect(messageOf([task('a'), task('a')], 'steps[1].name')).toBe('duplicate step name "a"');
  });

  it('rejects then, else and regenerateFrom naming a step that does not exist', () => {
    const steps = [
      { type: 'condition', name: 'c', expression: 'true', then: 'nowhere', else: 'c' },
      { type: 'condition', name: 'd', expression: 'true', else: 'gone' },
      { type: 'approval', name: 'e', contentKey: 'x', regenerateFrom: 'missing' },
    ];
    expect(fieldsOf(steps)).toEqual(['steps[0].then', 'steps[1].else', 'steps[2].regenerateFrom']);
    expect(messageOf(steps, 'steps[0].then')).toBe('no step named "nowhere"');
  });

  it('allows a jump to a later step and to the step itself', () => {
    expect(
      fieldsOf([
        { type: 'condition', name: 'c', expression: 'true', then: 'later', else: 'c' },
        task('later'),
      ]),
    ).toEqual([]);
  });

  describe('task', () => {
    it('requires a handler but accepts any name (unknown handlers fail at run time)', () => {
      expect(fieldsOf([{ type: 'task', name: 'a' }])).toEqual(['steps[0].handler']);
      expect(fieldsOf([task('a', { handler: 'not-registered-anywhere' })])).toEqual([]);
    });

    it('requires config to be an object', () => {
      expect(fieldsOf([task('a', { config: [] })])).toEqual(['steps[0].config']);
      expect(fieldsOf([task('a', { config: 'x' })])).toEqual(['steps[0].config']);
    });

    it('requires a valid JSONata config.expression for the transform handler', () => {
      expect(fieldsOf([task('a', { handler: 'transform' })])).toEqual([
        'steps[0].config.expression',
      ]);
      expect(fieldsOf([task('a', { handler: 'transform', config: { expression: '{' } })])).toEqual([
        'steps[0].config.expression',
      ]);
      expect(
        messageOf(
          [task('a', { handler: 'transform', config: { expression: 'a'.repeat(2001) } })],
          'steps[0].config.expression',
        ),
      ).toBe('must be at most 2000 characters');
    });
  });

  describe('wait', () => {
    it('rejects durationMs together with until', () => {
      expect(
        fieldsOf([{ type: 'wait', name: 'w', durationMs: 10, until: '2030-01-01T00:00:00Z' }]),
      ).toEqual(['steps[0].until']);
    });

    it('rejects an until that is neither an ISO 8601 timestamp nor a placeholder', () => {
      for (const until of ['tomorrow', '2030-01-01', '2030-13-01T00:00:00Z', '1700000000000']) {
        expect(fieldsOf([{ type: 'wait', name: 'w', until }])).toEqual(['steps[0].until']);
      }
      expect(fieldsOf([{ type: 'wait', name: 'w', until: '2030-01-01T10:00:00+02:00' }])).toEqual(
        [],
      );
    });

    it('rejects a negative or fractional durationMs', () => {
      expect(fieldsOf([{ type: 'wait', name: 'w', durationMs: -1 }])).toEqual([
        'steps[0].durationMs',
      ]);
      expect(fieldsOf([{ type: 'wait', name: 'w', durationMs: 1.5 }])).toEqual([
        'steps[0].durationMs',
      ]);
    });
  });

  describe('regex literals in JSONata expressions', () => {
    const literals = [
      '/a(?=b)/',
      '/(?<=a)b/',
      '/(a)\\1/',
      '/\\u00e9/',
      '/\\w{1000}\\w{1000}\\w{1000}/',
    ];

    it.each(literals)('refuses %s in a condition expression, naming the field', (literal) => {
      const expression = `$contains(text, /ok/) and $contains(text, ${literal})`;
      const steps = [task('a'), { type: 'condition', name: 'check', expression }];
      expect(fieldsOf(steps)).toEqual(['steps[1].expression']);
      expect(messageOf(steps, 'steps[1].expression')).toMatch(
        /^regular expression \/.+\/ at position \d+: /,
      );
    });

    it.each(literals)(
      'refuses %s in a transform config.expression, naming the field',
      (literal) => {
        const expression = `{"parts": $split(text, ${literal}), "n": $count($match(text, /\\d+/))}`;
        const steps = [task('a', { handler: 'transform', config: { expression } })];
        expect(fieldsOf(steps)).toEqual(['steps[0].config.expression']);
      },
    );

    it('accepts regex literals RE2 runs, with JSONata flags', () => {
      const expression = '$replace($split(t, /,\\s*/)[0], /^(\\w+)@/i, "$1 at ")';
      expect(fieldsOf([{ type: 'condition', name: 'c', expression }])).toEqual([]);
    });
  });

  describe('condition', () => {
    it('requires an expression that parses and is at most 2000 characters', () => {
      expect(fieldsOf([{ type: 'condition', name: 'c' }])).toEqual(['steps[0].expression']);
      expect(fieldsOf([{ type: 'condition', name: 'c', expression: 'a ==' }])).toEqual([
        'steps[0].expression',
      ]);
      expect(
        fieldsOf([{ type: 'condition', name: 'c', expression: `"${'x'.repeat(1998)}"` }]),
      ).toEqual([]);
      expect(
        fieldsOf([{ type: 'condition', name: 'c', expression: `"${'x'.repeat(1999)}"` }]),
      ).toEqual(['steps[0].expression']);
    });
  });

  describe('llm', () => {
    it('requires messages, at least one', () => {
      const { messages: _omitted, ...withoutMessages } = llm();
      expect(fieldsOf([withoutMessages])).toEqual(['steps[0].messages']);
      expect(fieldsOf([llm({ messages: [] })])).toEqual(['steps[0].messages']);
    });

    it('accepts only the roles system, user and assistant', () => {
      expect(fieldsOf([llm({ messages: [{ role: 'tool', content: 'x' }] })])).toEqual([
        'steps[0].messages[0].role',
      ]);
      for (const role of ['system', 'user', 'assistant']) {
        expect(fieldsOf([llm({ messages: [{ role, content: 'x' }] })])).toEqual([]);
      }
    });

    it('accepts a temperature from 0 to 2 only', () => {
      expect(fieldsOf([llm({ temperature: 0 })])).toEqual([]);
      expect(fieldsOf([llm({ temperature: 2 })])).toEqual([]);
      expect(fieldsOf([llm({ temperature: -0.1 })])).toEqual(['steps[0].temperature']);
      expect(fieldsOf([llm({ temperature: 2.01 })])).toEqual(['steps[0].temperature']);
    });

    it('requires a handler for each tool and parameters that are a JSON Schema object', () => {
      expect(fieldsOf([llm({ tools: [{ name: 't', parameters: {} }] })])).toEqual([
        'steps[0].tools[0].handler',
      ]);
      expect(fieldsOf([llm({ tools: [{ name: 't', handler: 'h', parameters: [] }] })])).toEqual([
        'steps[0].tools[0].parameters',
      ]);
      expect(
        fieldsOf([llm({ tools: [{ name: 't', handler: 'h', parameters: { type: 'string' } }] })]),
      ).toEqual(['steps[0].tools[0].parameters']);
    });

    it('rejects guardrail patterns the linear-time engine cannot run, naming each', () => {
      const unsupported = [
        'a(?=b)',
        '(?<!x)y',
        '(a)\\1',
        'a*+',
        '(?>a)',
        '\\w{1000}\\w{1000}\\w{1000}',
      ];
      const errors = validateSteps(
        [
          task('first'),
          llm({
            guardrails: { blockedPatterns: ['ok', ...unsupported], requiredPatterns: unsupported },
          }),
        ],
        BUILTIN_STEP_TYPES,
      ).errors;
      expect(errors.map((e) => e.field)).toEqual([
        ...unsupported.map((_, j) => `steps[1].guardrails.blockedPatterns[${j + 1}]`),
        ...unsupported.map((_, j) => `steps[1].guardrails.requiredPatterns[${j}]`),
      ]);
      expect(errors[0].message).toMatch(/^lookahead `\(\?=` is not supported: .*RE2/);
      expect(errors[5].message).toMatch(/^regular expression too large/);
    });

    it('rejects jsonSchema patterns the linear-time engine cannot run, at their schema path', () => {
      const jsonSchema = {
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^[A-Z]{3}(?!0)\\d+$' },
          tags: { items: { pattern: '(\\w)\\1' } },
          fine: { pattern: '^\\p{L}+$' },
        },
        additionalProperties: { anyOf: [{ pattern: 'x++' }] },
      };
      expect(
        fieldsOf([task('first'), task('second'), llm({ guardrails: { jsonSchema } })]),
      ).toEqual([
        'steps[2].guardrails.jsonSchema.properties.code.pattern',
        'steps[2].guardrails.jsonSchema.properties.tags.items.pattern',
        'steps[2].guardrails.jsonSchema.additionalProperties.anyOf[0].pattern',
      ]);
    });

    it('rejects an invalid guardrail regular expression, naming its index', () => {
      expect(fieldsOf([llm({ guardrails: { blockedPatterns: ['ok', '(unclosed'] } })])).toEqual([
        'steps[0].guardrails.blockedPatterns[1]',
      ]);
      expect(fieldsOf([llm({ guardrails: { requiredPatterns: ['[z-a]'] } })])).toEqual([
        'steps[0].guardrails.requiredPatterns[0]',
      ]);
    });
  });

  describe('approval', () => {
    const approval = (extra: Step = {}): Step => ({
      type: 'approval',
      name: 'r',
      contentKey: 'draft',
      ...extra,
    });

    it('requires contentKey', () => {
      expect(fieldsOf([{ type: 'approval', name: 'r', prompt: 'ok?' }])).toEqual([
        'steps[0].contentKey',
      ]);
    });

    it('accepts a full policy, its timeouts beyond a timer and up to APPROVAL_MAX_TIMEOUT_MS', () => {
      const policy = approval({
        assignees: ['ann', 'bob', 'finance'],
        requiredApprovals: 2,
        timeoutMs: 2_592_000_000,
        onTimeout: 'fail',
        escalateTo: { assignees: ['boss', 'deputy'], timeoutMs: 86_400_000 },
      });
      expect(fieldsOf([policy])).toEqual([]);
      expect(fieldsOf([approval({ requiredApprovals: 5 })])).toEqual([]);
      expect(fieldsOf([approval({ timeoutMs: 1, escalateTo: { assignees: ['b'] } })])).toEqual([]);
    });

    it('refuses a quorum the assignees cannot reach, before and after an escalation', () => {
      expect(
        messageOf(
          [approval({ assignees: ['a'], requiredApprovals: 2 })],
          'steps[0].requiredApprovals',
        ),
      ).toBe('must not be greater than the number of assignees (1)');
      expect(
        fieldsOf([
          approval({ requiredApprovals: 2, timeoutMs: 10, escalateTo: { assignees: ['b'] } }),
        ]),
      ).toEqual(['steps[0].escalateTo.assignees']);
    });

    it('refuses timeouts past the configured ceiling, naming it', () => {
      const config = { limits: { approvalMaxTimeoutMs: 60_000 } } as AppConfig;
      const errors = validateSteps(
        [approval({ timeoutMs: 60_001, escalateTo: { assignees: ['b'], timeoutMs: 60_001 } })],
        BUILTIN_STEP_TYPES,
        config,
      ).errors;
      expect(errors).toEqual([
        {
          field: 'steps[0].timeoutMs',
          message: 'must not be greater than 60000 (APPROVAL_MAX_TIMEOUT_MS)',
        },
        {
          field: 'steps[0].escalateTo.timeoutMs',
          message: 'must not be greater than 60000 (APPROVAL_MAX_TIMEOUT_MS)',
        },
      ]);
      expect(fieldsOf([approval({ timeoutMs: 2_592_000_001 })])).toEqual(['steps[0].timeoutMs']);
    });

    it('refuses onTimeout and escalateTo without a timeout to start them', () => {
      expect(fieldsOf([approval({ onTimeout: 'approve' })])).toEqual(['steps[0].onTimeout']);
      expect(fieldsOf([approval({ escalateTo: { assignees: ['b'] } })])).toEqual([
        'steps[0].escalateTo',
      ]);
    });
  });

  describe('workflow', () => {
    const id = '0190c5a2-0000-7000-8000-000000000001';
    it('accepts a child by id or by name and version, with a templated input', () => {
      expect(
        fieldsOf([
          { type: 'workflow', name: 'a', definitionId: id, input: { n: '{{x}}' } },
          { type: 'workflow', name: 'b', definitionName: 'child', version: '2' },
          { type: 'workflow', name: 'c', definitionId: id, waitForCompletion: false },
        ]),
      ).toEqual([]);
    });

    it('names each refused field', () => {
      expect(messageOf([{ type: 'workflow', name: 'a' }], 'steps[0].definitionId')).toBe(
        'give either definitionId, or definitionName with version',
      );
      expect(
        messageOf(
          [{ type: 'workflow', name: 'a', definitionId: id, definitionName: 'x', version: '1' }],
          'steps[0].definitionId',
        ),
      ).toBe('give either definitionId, or definitionName with version');
      expect(
        messageOf([{ type: 'workflow', name: 'a', definitionName: 'x' }], 'steps[0].version'),
      ).toBe('is required with definitionName');
      expect(
        fieldsOf([
          {
            type: 'workflow',
            name: 'a',
            definitionId: 'nope',
            input: [],
            waitForCompletion: 1,
            timeoutMs: 5,
            other: true,
          },
        ]).sort(),
      ).toEqual(
        [
          'steps[0].definitionId',
          'steps[0].input',
          'steps[0].other',
          'steps[0].timeoutMs',
          'steps[0].waitForCompletion',
        ].sort(),
      );
    });
  });

  describe('map', () => {
    const map = (extra: Step = {}): Step => ({
      type: 'map',
      name: 'each',
      items: 'documents',
      step: { type: 'task', handler: 'noop', config: { id: '{{item.id}}' } },
      ...extra,
    });

    it('accepts a task sub-step with counts or percentages of tolerated failures', () => {
      expect(
        fieldsOf([
          map(),
          map({ name: 'b', maxConcurrency: 50, toleratedFailures: 2, maxItems: 10_000 }),
          map({ name: 'c', toleratedFailures: '12.5%' }),
          map({ name: 'd', step: { type: 'task', handler: 'noop', retry: { maxAttempts: 2 } } }),
        ]),
      ).toEqual([]);
    });

    it('accepts a workflow sub-step and names its refused fields', () => {
      const id = '0190c5a2-0000-7000-8000-000000000001';
      expect(
        fieldsOf([
          map({ step: { type: 'workflow', definitionId: id, input: { doc: '{{item}}' } } }),
          map({ name: 'b', step: { type: 'workflow', definitionName: 'one', version: '1' } }),
        ]),
      ).toEqual([]);
      expect(fieldsOf([map({ step: { type: 'workflow' } })])).toEqual([
        'steps[0].step.definitionId',
      ]);
      expect(fieldsOf([map({ step: { type: 'workflow', definitionId: 'x' } })])).toEqual([
        'steps[0].step.definitionId',
      ]);
      expect(fieldsOf([map({ step: { type: 'workflow', definitionName: 'one' } })])).toEqual([
        'steps[0].step.version',
      ]);
      expect(
        fieldsOf([
          map({
            step: { type: 'workflow', definitionId: id, input: [], waitForCompletion: false },
          }),
        ]).sort(),
      ).toEqual(['steps[0].step.input', 'steps[0].step.waitForCompletion']);
    });

    it("names each refused field, the sub-step's with its path", () => {
      expect(fieldsOf([map({ items: undefined, step: undefined })]).sort()).toEqual([
        'steps[0].items',
        'steps[0].step',
      ]);
      expect(fieldsOf([map({ maxConcurrency: 1001 })])).toEqual(['steps[0].maxConcurrency']);
      expect(fieldsOf([map({ maxItems: 0 })])).toEqual(['steps[0].maxItems']);
      for (const bad of ['101%', '5 %', 'ten', -1, 1.5]) {
        expect(fieldsOf([map({ toleratedFailures: bad })])).toEqual(['steps[0].toleratedFailures']);
      }
      expect(messageOf([map({ step: { type: 'llm' } })], 'steps[0].step.type')).toBe(
        'must be task or workflow',
      );
      expect(fieldsOf([map({ step: { type: 'task', handler: 'noop', outputKey: 'x' } })])).toEqual([
        'steps[0].step.outputKey',
      ]);
      expect(
        fieldsOf([map({ step: { type: 'task', handler: 'noop', retry: { maxAttempts: 0 } } })]),
      ).toEqual(['steps[0].step.retry.maxAttempts']);
      expect(
        fieldsOf([
          map({ step: { type: 'task', handler: 'transform', config: { expression: '(' } } }),
        ]),
      ).toEqual(['steps[0].step.config.expression']);
    });
  });

  describe('retry', () => {
    it('accepts maxAttempts from 1 to 20 only', () => {
      expect(fieldsOf([task('a', { retry: { maxAttempts: 1 } })])).toEqual([]);
      expect(fieldsOf([task('a', { retry: { maxAttempts: 20 } })])).toEqual([]);
      expect(fieldsOf([task('a', { retry: { maxAttempts: 0 } })])).toEqual([
        'steps[0].retry.maxAttempts',
      ]);
      expect(fieldsOf([task('a', { retry: { maxAttempts: 21 } })])).toEqual([
        'steps[0].retry.maxAttempts',
      ]);
    });

    it('requires retry to be an object', () => {
      expect(fieldsOf([task('a', { retry: 3 })])).toEqual(['steps[0].retry']);
    });
  });

  it('reports every bad field of every step at once', () => {
    expect(
      fieldsOf([
        { type: 'task', name: 'a' },
        { type: 'wait', name: 'b', durationMs: 1, until: 'x' },
        { type: 'approval', name: 'a' },
      ]),
    ).toEqual(['steps[0].handler', 'steps[1].until', 'steps[2].contentKey', 'steps[2].name']);
  });
});
