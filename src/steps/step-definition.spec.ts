import { BUILTIN_STEP_TYPES } from '../step-types/builtin-step-types';
import {
  outputKeyOf,
  retryDelayMs,
  retryPolicyOf,
  type ResolvedRetryPolicy,
  type StepDefinition,
} from './step-definition';

/** The default attempts of a built-in type, as its descriptor declares them. */
function defaultMaxAttempts(type: string): number {
  const descriptor = BUILTIN_STEP_TYPES.find((d) => d.type === type);
  if (!descriptor) throw new Error(`no built-in step type "${type}"`);
  return descriptor.defaultMaxAttempts;
}

describe('retryPolicyOf', () => {
  it('defaults to 3 attempts for task and llm steps and 1 for the others', () => {
    expect(defaultMaxAttempts('task')).toBe(3);
    expect(defaultMaxAttempts('llm')).toBe(3);
    for (const type of ['wait', 'condition', 'external_event', 'approval'] as const) {
      expect(defaultMaxAttempts(type)).toBe(1);
    }
  });

  it('fills the design defaults: 1000 ms initial delay, multiplier 2, 60000 ms cap', () => {
    const step: StepDefinition = { type: 'task', name: 't', handler: 'noop' };
    expect(retryPolicyOf(step, defaultMaxAttempts(step.type))).toEqual({
      maxAttempts: 3,
      initialDelayMs: 1000,
      backoffMultiplier: 2,
      maxDelayMs: 60000,
    });
  });

  it('keeps every field the step sets', () => {
    const step: StepDefinition = {
      type: 'wait',
      name: 'w',
      retry: { maxAttempts: 5, initialDelayMs: 10, backoffMultiplier: 3, maxDelayMs: 100 },
    };
    expect(retryPolicyOf(step, defaultMaxAttempts(step.type))).toEqual({
      maxAttempts: 5,
      initialDelayMs: 10,
      backoffMultiplier: 3,
      maxDelayMs: 100,
    });
  });

  it('keeps an explicit zero delay rather than replacing it with the default', () => {
    const step: StepDefinition = {
      type: 'task',
      name: 't',
      handler: 'noop',
      retry: { initialDelayMs: 0, maxDelayMs: 0 },
    };
    expect(retryPolicyOf(step, defaultMaxAttempts(step.type))).toMatchObject({
      initialDelayMs: 0,
      maxDelayMs: 0,
    });
  });
});

describe('retryDelayMs', () => {
  const policy = (p: Partial<ResolvedRetryPolicy> = {}): ResolvedRetryPolicy => ({
    maxAttempts: 10,
    initialDelayMs: 1000,
    backoffMultiplier: 2,
    maxDelayMs: 60000,
    ...p,
  });

  it('waits the initial delay before the second attempt, then multiplies', () => {
    expect([2, 3, 4, 5].map((n) => retryDelayMs(policy(), n))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never exceeds maxDelayMs', () => {
    expect(retryDelayMs(policy(), 7)).toBe(32000);
    expect(retryDelayMs(policy(), 8)).toBe(60000);
    expect(retryDelayMs(policy(), 20)).toBe(60000);
  });

  it('with a multiplier of 1 the delay stays constant', () => {
    expect([2, 3, 9].map((n) => retryDelayMs(policy({ backoffMultiplier: 1 }), n))).toEqual([
      1000, 1000, 1000,
    ]);
  });

  it('rounds fractional delays to whole milliseconds', () => {
    const p = policy({ initialDelayMs: 100, backoffMultiplier: 1.5 });
    expect([2, 3, 4].map((n) => retryDelayMs(p, n))).toEqual([100, 150, 225]);
    expect(retryDelayMs(p, 5)).toBe(338);
  });

  it('is zero when the initial delay is zero', () => {
    expect(retryDelayMs(policy({ initialDelayMs: 0 }), 5)).toBe(0);
  });
});

describe('outputKeyOf', () => {
  it('is the step name unless outputKey is set', () => {
    expect(outputKeyOf({ type: 'task', name: 'fetch', handler: 'noop' })).toBe('fetch');
    expect(outputKeyOf({ type: 'task', name: 'fetch', handler: 'noop', outputKey: 'order' })).toBe(
      'order',
    );
  });
});
