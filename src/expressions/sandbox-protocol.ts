/** Messages between the expression sandbox (main process) and its worker processes. */

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
