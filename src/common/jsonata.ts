import jsonata from 'jsonata';
import {
  LinearRegexError,
  LinearRegExp,
  regexLiteralProblem,
  RegexWorkLimitError,
} from './linear-regex';

export const MAX_EXPRESSION_LENGTH = 2000;
/** Default budget of one evaluation (EXPRESSION_TIMEOUT_MS); JSONata checks it at every step. */
export const EXPRESSION_TIMEOUT_MS = 1000;
/**
 * Limits passed as jsonata's own `timeout`, `stack` and `sequence` options, and checked on the result
 * of every evaluation step by the `__evaluate_exit` hook (looked up by Symbol in jsonata 2.x, so
 * binding it by name has no effect), which stops a doubling string or array as soon as it crosses the
 * cap instead of when the heap is gone.
 */
const MAX_DEPTH = 500;
export const MAX_SEQUENCE = 1_000_000;
/** Longest string an evaluation may build (10 M characters: 10-20 MB, well inside a worker's heap). */
export const MAX_STRING_LENGTH = 10_000_000;
/** Compiled expressions kept per process (each sandbox worker has its own cache). */
const COMPILED_CACHE_SIZE = 256;

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

/**
 * The evaluation hit one of the sandbox's limits (time, depth, sizes, memory, result size). The same
 * expression on the same state would hit it again: steps fail without retrying.
 */
export class ExpressionLimitError extends ExpressionError {}

/** Evaluation limits understood by jsonata >= 2.1 (missing from its type declarations). */
interface GuardedOptions extends jsonata.JsonataOptions {
  /** Wall-clock milliseconds; checked before every evaluation step, tail calls included. */
  timeout: number;
  /** Maximum nesting of evaluation steps. */
  stack: number;
  /** Maximum length of any sequence built during evaluation. */
  sequence: number;
}

/** The one place where evaluation options are built: every evaluation, in every worker, uses them. */
function jsonataOptions(timeoutMs: number): GuardedOptions {
  return {
    timeout: timeoutMs,
    stack: MAX_DEPTH,
    sequence: MAX_SEQUENCE,
    // Tenant regex literals run in linear time (RE2), not on V8's backtracking engine.
    RegexEngine: LinearRegExp as unknown as RegExpConstructor,
  };
}

/** Runs after every evaluation step: a result past a size cap ends the evaluation there. */
function checkStepResult(_expr: unknown, _input: unknown, _env: unknown, result: unknown): void {
  if (typeof result === 'string') {
    if (result.length > MAX_STRING_LENGTH) {
      throw new ExpressionLimitError(
        `expression built a string longer than ${MAX_STRING_LENGTH} characters`,
      );
    }
  } else if (Array.isArray(result) && result.length > MAX_SEQUENCE) {
    throw new ExpressionLimitError(`expression built a sequence longer than ${MAX_SEQUENCE} items`);
  }
}

const compiledCache = new Map<string, jsonata.Expression>();

/** Compiles through a bounded LRU cache: the hot path evaluates the same few expressions again. */
function compile(expression: string, timeoutMs: number): jsonata.Expression {
  const key = `${timeoutMs}\u0000${expression}`;
  const cached = compiledCache.get(key);
  if (cached) {
    compiledCache.delete(key);
    compiledCache.set(key, cached);
    return cached;
  }
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expression, jsonataOptions(timeoutMs));
  } catch (err) {
    throw new ExpressionError(`invalid JSONata expression: ${(err as Error).message}`);
  }
  (compiled.assign as unknown as (name: symbol, value: unknown) => void)(
    Symbol.for('jsonata.__evaluate_exit'),
    checkStepResult,
  );
  compiledCache.set(key, compiled);
  if (compiledCache.size > COMPILED_CACHE_SIZE) {
    compiledCache.delete(compiledCache.keys().next().value as string);
  }
  return compiled;
}

/**
 * The error behind JSONata's `$eval` wrappers (D3120 syntax, D3121 evaluation), which carry the
 * original as `error`: without unwrapping, a limit hit inside `$eval` would look like an ordinary
 * (retried) failure.
 */
function innermostError(err: unknown): unknown {
  let current = err;
  for (;;) {
    const wrapped = current as { code?: unknown; error?: unknown } | null;
    if (typeof wrapped !== 'object' || wrapped === null) return current;
    if (wrapped.code !== 'D3120' && wrapped.code !== 'D3121') return current;
    if (wrapped.error === undefined) return current;
    current = wrapped.error;
  }
}

/**
 * Evaluates a JSONata expression against the run state with a time, depth and size budget, enforced
 * by JSONata itself before and after every evaluation step (tail-recursive loops included). What this
 * cannot stop (one huge native operation, the heap) is contained by running it in the expression
 * sandbox (src/expressions), whose workers call this function. Compiled expressions are cached: each
 * evaluation gets its own frame, so reuse is safe (a worker evaluates one at a time anyway).
 */
export async function evaluateExpression(
  expression: string,
  input: unknown,
  bindings: Record<string, unknown> = {},
  timeoutMs = EXPRESSION_TIMEOUT_MS,
): Promise<unknown> {
  const compiled = compile(expression, timeoutMs);
  try {
    return await compiled.evaluate(input, bindings);
  } catch (thrown) {
    const err = innermostError(thrown);
    if (err instanceof ExpressionError) throw err;
    if (err instanceof RegexWorkLimitError || err instanceof LinearRegexError) {
      // The same pattern over the same text fails again: a pattern past the work budget, or one
      // RE2 cannot run that only exists at run time (built by $eval, or stored before validation).
      throw new ExpressionLimitError(err.message);
    }
    const e = err as { message?: string; code?: string };
    if (e.code === 'D1012') {
      throw new ExpressionLimitError(`expression exceeded its time budget of ${timeoutMs} ms`);
    }
    if (e.code === 'D1011') throw new ExpressionLimitError('expression exceeded the maximum depth');
    if (e.code === 'D2014' || e.code === 'D2015') {
      throw new ExpressionLimitError(
        `expression built a sequence longer than ${MAX_SEQUENCE} items`,
      );
    }
    if (err instanceof RangeError) {
      // V8's own ceilings (a string past 2^29 characters, a call stack overflow).
      throw new ExpressionLimitError(`expression exceeded a runtime limit: ${err.message}`);
    }
    // The outer message: `$eval`'s wrapper says where the failure happened.
    throw new ExpressionError((thrown as { message?: string }).message ?? String(thrown));
  }
}
