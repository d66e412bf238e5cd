import { Inject, Injectable } from '@nestjs/common';
import { timeOrderedUuid } from '../../common/ids';
import { renderDeep, TemplateError } from '../../common/templates';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ChildRuns } from '../../queue/child-runs';
import { CHILD_RUN_FINISHED_SIGNAL } from '../../queue/queue.sql';
import type { WorkflowStep } from '../../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../../steps/step-executor';
import { resolveChild } from './child-target';

/** What a child's end hands the waiting step (WAKE_PARENTS). */
interface ChildEnd {
  childRunId: string;
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  output: Record<string, unknown> | null;
  error: string | null;
}

/**
 * Starts a child run in the transaction that records this step's outcome, then either completes at
 * once (`waitForCompletion: false`, output `{childRunId}`) or parks WAITING without a timer until the
 * child ends: its end wakes this step with a `child_run.finished` signal. COMPLETED gives the child's
 * output as the step's; FAILED or CANCELLED fails the step, retryable, and a retry starts a new child.
 */
@Injectable()
export class WorkflowStepExecutor implements StepExecutor {
  constructor(
    private readonly children: ChildRuns,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as WorkflowStep;
    if (ctx.wake === 'signal' && ctx.signal?.signalType === CHILD_RUN_FINISHED_SIGNAL) {
      return this.childEnded(ctx, ctx.signal.payload as ChildEnd);
    }
    const resolved = await resolveChild(
      this.children,
      ctx.workspaceId,
      ctx.runId,
      step,
      this.config.executor.workflowMaxDepth,
    );
    if ('error' in resolved) return { kind: 'fail', error: resolved.error, retryable: false };
    const { definition, depth } = resolved;
    let input: unknown;
    try {
      input = renderDeep(step.input ?? {}, ctx.state);
    } catch (err) {
      if (err instanceof TemplateError) return { kind: 'fail', error: err.message, retryable: false };
      throw err;
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return { kind: 'fail', error: 'input must render to a JSON object', retryable: false };
    }
    const wait = step.waitForCompletion ?? true;
    const childRunId = timeOrderedUuid();
    const effects = async (tx: Parameters<NonNullable<StepOutcome['effects']>>[0]) => {
      await this.children.start(tx.client, {
        id: childRunId,
        workspaceId: ctx.workspaceId,
        definition,
        input: input as Record<string, unknown>,
        parentRunId: ctx.runId,
        parentStepRunId: ctx.stepRunId,
        waitAttempt: wait ? ctx.attempt : null,
        depth,
      });
      tx.event('CHILD_RUN_STARTED', {
        stepName: step.name,
        childRunId,
        definitionId: definition.id,
        waitForCompletion: wait,
      });
    };
    if (!wait) return { kind: 'complete', output: { childRunId }, effects };
    return { kind: 'wait', dueAt: null, effects };
  }

  private childEnded(ctx: StepContext, end: ChildEnd): StepOutcome {
    ctx.emit('CHILD_RUN_FINISHED', {
      stepName: ctx.step.name,
      childRunId: end.childRunId,
      status: end.status,
    });
    if (end.status === 'COMPLETED') return { kind: 'complete', output: end.output ?? {} };
    const why =
      end.status === 'CANCELLED' ? 'was cancelled' : `failed: ${end.error ?? 'unknown error'}`;
    return { kind: 'fail', error: `child run ${end.childRunId} ${why}`, retryable: true };
  }
}
