import type { Response } from 'express';

export interface ErrorPayload {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Writes the error envelope of the interface (part 7). Used by the filter and by raw middleware. */
export function sendError(res: Response, err: ErrorPayload): void {
  if (res.headersSent) return;
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details !== undefined) error.details = err.details;
  res.status(err.status).json({ success: false, error });
}
