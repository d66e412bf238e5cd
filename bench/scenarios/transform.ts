import type { Throughput } from '../lib/types';

/**
 * Scenario 7: the `transform`/`condition` hot path. Three small JSONata expressions over the run input,
 * each reading the previous step's output, so the figure moves with the cost of one evaluation
 * (compiling, evaluating, and since the expression sandbox, the round trip to its worker).
 */
export const THREE_TRANSFORM_STEPS = [
  { type: 'task', name: 'one', handler: 'transform', config: { expression: '{"n": i + 1}' } },
  {
    type: 'task',
    name: 'two',
    handler: 'transform',
    config: { expression: '{"double": one.n * 2, "even": one.n % 2 = 0}' },
  },
  {
    type: 'task',
    name: 'three',
    handler: 'transform',
    config: { expression: '{"label": "run " & $string(i) & (two.even ? " even" : " odd")}' },
  },
];

export interface TransformResult {
  /** 3-step `transform` workflow, execution only (like 1(b)). */
  transform: Throughput;
  /** 3-step `noop` workflow measured in the same scenario (1(b) again), the reference. */
  noop: Throughput;
  samples: { transform: Throughput[]; noop: Throughput[] };
}
