import jsonata from 'jsonata';
import { LinearRegExp, regexLiteralProblem } from './linear-regex';

export const MAX_EXPRESSION_LENGTH = 2000;
/** Wall-clock budget of one evaluation; JSONata checks it at every step, so loops cannot run away. */
export const EXPRESSION_TIMEOUT_MS = 1000;
/**
 * Limits passed as jsonata's own `timeout`, `stack` and `sequence` options. Its `__evaluate_entry` and
 * `__evaluate_exit` hooks are looked up by Symbol in jsonata 2.x, so binding them by name has no effect.
 */
const MAX_DEPTH = 500;
const MAX_SEQUENCE = 1_000_000;

/** Returns a human-readable syntax error, or undefined when the expression compiles. */
export function expressionSyntaxError(expression: string): string | undefined {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return `must be at most ${MAX_EXPRESSION_LENGTH} characters`;
  }
  let ast: jsonata.ExprNode;
  try {
    ast = jsonata(expression).ast();
  } catch (err) {
    return `invalid JSONata expression: ${(err as Error).message}`;
  }
  return regexLiteralProblem(ast);
}

export class ExpressionError extends Error {}

/** Evaluation limits understood by jsonata >= 2.1 (missing from its type declarations). */
interface GuardedOptions extends jsonata.JsonataOptions {
  /** Wall-clock milliseconds; checked before every evaluation step, tail calls included. */
  timeout: number;
  /** Maximum nesting of evaluation steps. */
  stack: number;
  /** Maximum length of any sequence built during evaluation. */
  sequence: number;
}

/**
 * Evaluates a JSONata expression against the run state with a time, depth and size budget, enforced
 * by JSONata itself before every evaluation step (tail-recursive loops included). One tenant's
 * expression cannot stall the process.
 */
export async function evaluateExpression(
  expression: string,
  input: unknown,
  bindings: Record<string, unknown> = {},
  timeoutMs = EXPRESSION_TIMEOUT_MS,
): Promise<unknown> {
  const options: GuardedOptions = {
    timeout: timeoutMs,
    stack: MAX_DEPTH,
    sequence: MAX_SEQUENCE,
    // Tenant regex literals run in linear time (RE2), not on V8's backtracking engine.
    RegexEngine: LinearRegExp as unknown as RegExpConstructor,
  };
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expression, options);
  } catch (err) {
    throw new ExpressionError(`invalid JSONata expression: ${(err as Error).message}`);
  }
  try {
    return await compiled.evaluate(input, bindings);
  } catch (err) {
    const e = err as { message?: string; code?: string };
    if (e.code === 'D1012') {
      throw new ExpressionError(`expression exceeded its time budget of ${timeoutMs} ms`);
    }
    if (e.code === 'D1011') throw new ExpressionError('expression exceeded the maximum depth');
    if (e.code === 'D2015') {
      throw new ExpressionError(`expression built a sequence longer than ${MAX_SEQUENCE} items`);
    }
    throw new ExpressionError(e.message ?? String(err));
  }
}
