import { Injectable } from '@nestjs/common';
import { lookupPath, renderDeep, TemplateError } from '../../common/templates';
import { TaskHandlerRegistry } from '../../handlers/task-handler.registry';
import { MapItems, type ItemResult, type MapOwner } from '../../queue/map-items';
import {
  retryDelayMs,
  retryPolicyOf,
  type MapStep,
  type TaskStep,
} from '../../steps/step-definition';
import {
  NonRetryableError,
  type StepContext,
  type StepExecutor,
  type StepOutcome,
} from '../../steps/step-executor';
import { MAX_MAP_ITEMS } from './map-step.dto';
import { TOLERATED_PERCENT } from './map.step-type';

const DEFAULT_CONCURRENCY = 10;
/** A task sub-step's attempts when it sets no `retry.maxAttempts`, as for a task step. */
const DEFAULT_ITEM_ATTEMPTS = 3;

/** How many failed items `toleratedFailures` allows out of `total`. */
export function toleratedCount(tolerated: number | string | undefined, total: number): number {
  if (tolerated === undefined) return 0;
  if (typeof tolerated === 'number') return tolerated;
  const match = TOLERATED_PERCENT.exec(tolerated);
  return match ? Math.floor((total * Number.parseFloat(tolerated)) / 100) : 0;
}

/**
 * Executes a map step in the process holding its lease: the items are rows (`MapItems`), taken
 * `maxConcurrency` at a time as slots free, run with the task handler, and settled in batches with
 * their events. A process that dies mid-map leaves its unsettled items to the executor that takes the
 * step over when the lease expires; settled items stay settled (an item completes at most once). When
 * every item has settled, the step completes with the results in order, or fails when more items
 * failed than `toleratedFailures` allows (retryable: a retry runs only the failed items).
 */
@Injectable()
export class MapStepExecutor implements StepExecutor {
  constructor(
    private readonly handlers: TaskHandlerRegistry,
    private readonly items: MapItems,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as MapStep;
    const sub = step.step as TaskStep;
    const handler = this.handlers.get(sub.handler);
    if (!handler) {
      return { kind: 'fail', error: `unknown task handler "${sub.handler}"`, retryable: false };
    }
    const list = lookupPath(ctx.state, step.items);
    if (!Array.isArray(list)) {
      const got = list === undefined ? 'nothing' : list === null ? 'null' : typeof list;
      return {
        kind: 'fail',
        error: `items: "${step.items}" is not an array in the run state (found ${got})`,
        retryable: false,
      };
    }
    const maxItems = step.maxItems ?? MAX_MAP_ITEMS;
    if (list.length > maxItems) {
      return {
        kind: 'fail',
        error: `items: "${step.items}" has ${list.length} items, more than maxItems (${maxItems})`,
        retryable: false,
      };
    }
    const owner: MapOwner = {
      stepRunId: ctx.stepRunId,
      workerId: ctx.workerId,
      runId: ctx.runId,
      workspaceId: ctx.workspaceId,
    };
    await this.items.prepare(owner, ctx.stepIndex, ctx.attempt, list.length);
    const lost = await this.runItems(ctx, step, sub, list, owner);
    if (lost)
      return { kind: 'fail', error: "the map step is no longer this executor's", retryable: true };

    const settled = await this.items.results(ctx.stepRunId);
    const failed = settled.filter((i) => i.status !== 'COMPLETED');
    const output = {
      results: settled.map((i) => (i.status === 'COMPLETED' ? i.output : null)),
      failedItems: failed.map((i) => ({ index: i.index, error: i.error })),
    };
    const tolerated = toleratedCount(step.toleratedFailures, list.length);
    if (failed.length > tolerated) {
      const first = failed[0];
      return {
        kind: 'fail',
        error:
          `${failed.length} of ${list.length} items failed, more than the ${tolerated} tolerated ` +
          `(toleratedFailures); first, item ${first.index}: ${first.error ?? first.status}`,
        retryable: true,
      };
    }
    return { kind: 'complete', output };
  }

  /**
   * Takes and runs items until none is left, at most `maxConcurrency` at once, settling finished ones
   * in batches. Returns true when a settle found the step no longer ours.
   */
  private async runItems(
    ctx: StepContext,
    step: MapStep,
    sub: TaskStep,
    list: unknown[],
    owner: MapOwner,
  ): Promise<boolean> {
    const limit = step.maxConcurrency ?? DEFAULT_CONCURRENCY;
    const finished: ItemResult[] = [];
    let inFlight = 0;
    let exhausted = false;
    let wake: (() => void) | null = null;
    const signalled = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    ctx.abortSignal.addEventListener('abort', signalled, { once: true });
    for (;;) {
      ctx.abortSignal.throwIfAborted();
      if (!exhausted && inFlight < limit) {
        const want = limit - inFlight;
        const taken = await this.items.take(owner, want);
        if (taken.length < want) exhausted = true;
        for (const item of taken) {
          inFlight++;
          void this.runItem(ctx, step, sub, list, item.index, item.attempts).then((result) => {
            finished.push(result);
            inFlight--;
            signalled();
          });
        }
      }
      if (finished.length > 0) {
        const batch = finished.splice(0);
        const settled = await this.items.settle(owner, step.name, batch);
        if (settled === 0) return true;
        continue;
      }
      if (inFlight === 0 && exhausted) return false;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (ctx.abortSignal.aborted) resolve();
      });
    }
  }

  /** One item: the handler with the config rendered over the state plus `item` and `index`. */
  private async runItem(
    ctx: StepContext,
    step: MapStep,
    sub: TaskStep,
    list: unknown[],
    index: number,
    executions: number,
  ): Promise<ItemResult> {
    const started = performance.now();
    const state = { ...ctx.state, item: list[index], index };
    const done = (
      status: ItemResult['status'],
      output: ItemResult['output'],
      error: string | null,
    ) => ({ index, status, output, error, durationMs: performance.now() - started });
    let config: Record<string, unknown>;
    try {
      config = renderDeep(sub.config ?? {}, state) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof TemplateError) return done('FAILED', null, err.message);
      return done('FAILED', null, err instanceof Error ? err.message : String(err));
    }
    const policy = retryPolicyOf({ ...sub, name: step.name }, DEFAULT_ITEM_ATTEMPTS);
    const handler = this.handlers.get(sub.handler)!;
    for (let attempt = 1; ; attempt++) {
      try {
        const output = await handler.handle({
          config,
          state,
          signal: ctx.abortSignal,
          attempt: executions > 1 ? executions : attempt,
          runId: ctx.runId,
          workspaceId: ctx.workspaceId,
          stepName: step.name,
        });
        const isObject = output !== null && typeof output === 'object' && !Array.isArray(output);
        return done('COMPLETED', isObject ? output : { value: output ?? null }, null);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (
          err instanceof NonRetryableError ||
          ctx.abortSignal.aborted ||
          attempt >= policy.maxAttempts
        ) {
          return done('FAILED', null, message);
        }
        await sleep(retryDelayMs(policy, attempt + 1), ctx.abortSignal);
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
