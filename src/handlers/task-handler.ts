import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';

export interface TaskHandlerContext {
  /** The step's `config`, with `{{placeholders}}` filled from the run state. */
  config: Record<string, unknown>;
  /** The run state (read-only by convention: return the result instead). */
  state: Record<string, unknown>;
  /** Fires when the run is cancelled, the step times out or the process shuts down. */
  signal: AbortSignal;
  attempt: number;
  runId: string;
  workspaceId: string;
  stepName: string;
}

/** A task handler: returns the step output (an object). Throw to fail the attempt. */
export interface TaskHandlerImpl {
  handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export const TASK_HANDLER_NAME = 'task-handler:name';

/**
 * Registers an injectable as the task handler `name`. Any module may declare such providers; the
 * registry finds them at boot, so teams add handlers without touching the executor.
 *
 *   @TaskHandler('send-invoice')
 *   export class SendInvoiceHandler implements TaskHandlerImpl { ... }
 */
export const TaskHandler = (name: string) =>
  applyDecorators(Injectable(), SetMetadata(TASK_HANDLER_NAME, name));
