import type { Response } from 'express';

export interface ErrorPayload {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Seconds for `Retry-After` (503 answers). */
  retryAfterSeconds?: number;
}

/** Writes the error envelope of the interface (part 7). Used by the filter and by raw middleware. */
export function sendError(res: Response, err: ErrorPayload): void {
  if (res.headersSent) return;
  if (err.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(err.retryAfterSeconds));
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details !== undefined) error.details = err.details;
  res.status(err.status).json({ success: false, error });
}
