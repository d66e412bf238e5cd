/**
 * Entry point of one expression sandbox worker: a child process of its own (see ExpressionSandbox for
 * why not a worker thread). It evaluates one expression at a time with `evaluateExpression` and answers
 * with a JSON-safe value no larger than the result limit, or an error.
 */
import { evaluateExpression, ExpressionLimitError } from '../common/jsonata';
import {
  MAX_ERROR_MESSAGE_CHARS,
  type EvaluateRequest,
  type WorkerLimits,
  type WorkerMessage,
} from './sandbox-protocol';

const limits = JSON.parse(process.argv[2] ?? '{}') as WorkerLimits;

/** Bytes the JSON of a number takes at most (`-1.2345678901234567e+308`). */
const NUMBER_BYTES = 24;

function isFunctionLike(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return v._jsonata_lambda === true || v._jsonata_function === true;
}

/**
 * An upper bound of the result's JSON size, walked before serialising it, that stops as soon as it
 * passes `max`: a result that shares one sub-object many times (doubling `{"a": $x, "b": $x}`) is
 * small in memory but exponential as JSON, and must be refused without being serialised. Strings are
 * counted at six bytes a character (the worst escape); the exact size is checked once serialised.
 * Also says whether the result holds functions, which JSON cannot carry.
 */
function measure(root: unknown, max: number): { tooLarge: boolean; hasFunctions: boolean } {
  let bytes = 0;
  let hasFunctions = false;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value === 'number') bytes += NUMBER_BYTES;
    else if (value === null || value === undefined || typeof value === 'boolean') bytes += 5;
    else if (isFunctionLike(value)) {
      hasFunctions = true;
      bytes += 4;
    } else if (Array.isArray(value)) {
      bytes += 2 + value.length;
      for (const item of value) stack.push(item);
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        bytes += k.length + 4;
        stack.push(v);
      }
      bytes += 2;
    }
    if (bytes > max) return { tooLarge: true, hasFunctions };
  }
  return { tooLarge: false, hasFunctions };
}

/** Functions (lambdas) become null: JSON has none, and JSONata's truthiness calls them false. */
const withoutFunctions = (_key: string, value: unknown): unknown =>
  isFunctionLike(value) ? null : value;

function resultTooLarge(): ExpressionLimitError {
  return new ExpressionLimitError(
    `expression result exceeded the limit of ${limits.maxResultBytes} bytes`,
  );
}

/** The value as it will be sent (plain JSON data), or an error when it is over the result limit. */
function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  const { tooLarge, hasFunctions } = measure(value, limits.maxResultBytes * 6);
  if (tooLarge) throw resultTooLarge();
  const json = JSON.stringify(value, hasFunctions ? withoutFunctions : undefined);
  if (Buffer.byteLength(json) > limits.maxResultBytes) throw resultTooLarge();
  // The IPC channel serialises the message as JSON again: parse back only when the replacer changed it.
  return hasFunctions ? (JSON.parse(json) as unknown) : value;
}

const TRUNCATED = '… (truncated)';

/** The message cut to MAX_ERROR_MESSAGE_CHARS, marker included, so it stays bounded over IPC. */
function boundedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return message.slice(0, MAX_ERROR_MESSAGE_CHARS - TRUNCATED.length) + TRUNCATED;
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

process.on('message', (raw) => {
  const req = raw as EvaluateRequest;
  evaluateExpression(req.expression, req.input, req.bindings, limits.timeoutMs)
    .then((value) => {
      const safe = jsonSafe(value);
      send(safe === undefined ? { id: req.id, ok: true } : { id: req.id, ok: true, value: safe });
    })
    .catch((err: unknown) => {
      const message = boundedMessage(err instanceof Error ? err.message : String(err));
      send({ id: req.id, ok: false, message, limit: err instanceof ExpressionLimitError });
    });
});
// The sandbox went away (its process died, even by SIGKILL): nothing is left to answer to.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
