import jsonata from 'jsonata';

export const MAX_EXPRESSION_LENGTH = 2000;
/** Wall-clock budget of one evaluation; JSONata checks it at every step, so loops cannot run away. */
export const EXPRESSION_TIMEOUT_MS = 1000;
const MAX_DEPTH = 200;

/** Returns a human-readable syntax error, or undefined when the expression compiles. */
export function expressionSyntaxError(expression: string): string | undefined {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return `must be at most ${MAX_EXPRESSION_LENGTH} characters`;
  }
  try {
    jsonata(expression);
    return undefined;
  } catch (err) {
    return `invalid JSONata expression: ${(err as Error).message}`;
  }
}

export class ExpressionError extends Error {}

/**
 * Evaluates a JSONata expression against the run state with a time and depth budget (the entry/exit
 * hooks JSONata calls around every evaluation step). One tenant's expression cannot stall the process.
 */
export async function evaluateExpression(
  expression: string,
  input: unknown,
  bindings: Record<string, unknown> = {},
  timeoutMs = EXPRESSION_TIMEOUT_MS,
): Promise<unknown> {
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expression);
  } catch (err) {
    throw new ExpressionError(`invalid JSONata expression: ${(err as Error).message}`);
  }
  const deadline = Date.now() + timeoutMs;
  let depth = 0;
  const guarded = compiled as jsonata.Expression & {
    assign(name: string, value: unknown): void;
  };
  guarded.assign('__evaluate_entry', () => {
    depth++;
    if (depth > MAX_DEPTH) throw new ExpressionError('expression exceeded the maximum depth');
    if (Date.now() > deadline) {
      throw new ExpressionError(`expression exceeded its time budget of ${timeoutMs} ms`);
    }
  });
  guarded.assign('__evaluate_exit', () => {
    depth--;
  });
  try {
    return await compiled.evaluate(input, bindings);
  } catch (err) {
    if (err instanceof ExpressionError) throw err;
    const e = err as { message?: string; code?: string };
    throw new ExpressionError(e.message ?? String(err));
  }
}
