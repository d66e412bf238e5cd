/** Messages between the expression sandbox (main process) and its worker processes. */

/**
 * Longest error message a worker sends back, in characters. The result cap does not cover errors, and
 * `$error($pad("", 9000000, "x"))` would otherwise post megabytes over IPC and into the step's stored
 * error; a longer message is cut and marked.
 */
export const MAX_ERROR_MESSAGE_CHARS = 4096;

/** Fixed for the life of a worker: given as its one command-line argument (JSON). */
export interface WorkerLimits {
  timeoutMs: number;
  maxResultBytes: number;
}

export interface EvaluateRequest {
  id: number;
  expression: string;
  input: unknown;
  bindings: Record<string, unknown>;
}

export type WorkerMessage =
  | { ready: true }
  /** `value` absent: the expression matched nothing (JSONata's undefined). */
  | { id: number; ok: true; value?: unknown }
  /** `limit`: the evaluation hit a sandbox limit (not retried); otherwise an ordinary JSONata error. */
  | { id: number; ok: false; message: string; limit: boolean };
