import { Inject, Injectable } from '@nestjs/common';
import { timeOrderedUuid } from '../../common/ids';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ChildRuns } from '../../queue/child-runs';
import type { StepTransaction } from '../../queue/outcome-plan';
import { resolveChild } from '../workflow/child-target';
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
/** How often, at most, a map of child runs looks at them without being woken by one's end. */
const CHILD_CHECK_MS = 2000;
const LOST: StepOutcome = {
  kind: 'fail',
  error: "the map step is no longer this executor's",
  retryable: true,
};

/** A map's workflow sub-step: each item a child run of this definition with this input. */
interface WorkflowSubStep {
  type: 'workflow';
  definitionId?: string;
  definitionName?: string;
  version?: string;
  input?: Record<string, unknown>;
}
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
    private readonly children: ChildRuns,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as MapStep;
    const sub = step.step as TaskStep;
    if (sub.type === 'task' && !this.handlers.get(sub.handler)) {
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
    if ((sub as { type: string }).type === 'workflow') {
      return this.executeChildren(ctx, step, step.step as unknown as WorkflowSubStep, list, owner);
    }
    await this.items.prepare(owner, ctx.stepIndex, ctx.attempt, list.length);
    const lost = await this.runItems(ctx, step, sub, list, owner);
    if (lost) return LOST;
    return this.finish(ctx, step, list.length);
  }

  /**
   * A workflow sub-step: each item is a child run. The step never holds its slot while children run:
   * each execution settles the items whose child ended, starts children for the free slots (in the
   * transaction recording its outcome, with the items marked RUNNING), and parks until a child ends
   * (which wakes it) or CHILD_CHECK_MS pass (a child that ended while the step was executing, before
   * it parked, woke nothing). When no item is left running or waiting, it finishes as a task map does.
   */
  private async executeChildren(
    ctx: StepContext,
    step: MapStep,
    sub: WorkflowSubStep,
    list: unknown[],
    owner: MapOwner,
  ): Promise<StepOutcome> {
    const resolved = await resolveChild(
      this.children,
      ctx.workspaceId,
      ctx.runId,
      sub,
      this.config.executor.workflowMaxDepth,
    );
    if ('error' in resolved) return { kind: 'fail', error: resolved.error, retryable: false };
    const { definition, depth } = resolved;
    await this.items.prepare(owner, ctx.stepIndex, ctx.attempt, list.length, false);
    const running = (await this.items.results(ctx.stepRunId)).filter((i) => i.status === 'RUNNING');
    const ended: ItemResult[] = [];
    if (running.length > 0) {
      const kids = await this.items.children(ctx.runId, ctx.stepRunId);
      for (const item of running) {
        const kid = kids.get(item.index);
        if (!kid || !['COMPLETED', 'FAILED', 'CANCELLED'].includes(kid.status)) continue;
        const ok = kid.status === 'COMPLETED';
        ended.push({
          index: item.index,
          status: ok ? 'COMPLETED' : 'FAILED',
          output: ok ? (kid.output ?? {}) : null,
          error: ok
            ? null
            : kid.status === 'CANCELLED'
              ? `child run ${kid.id} was cancelled`
              : `child run ${kid.id} failed: ${kid.error ?? 'unknown error'}`,
          durationMs: 0,
        });
      }
      if (ended.length > 0 && (await this.items.settle(owner, step.name, ended)) === 0) return LOST;
    }
    const stillRunning = running.length - ended.length;
    const free = (step.maxConcurrency ?? DEFAULT_CONCURRENCY) - stillRunning;
    const next = free > 0 ? await this.items.pending(ctx.stepRunId, free) : [];
    if (stillRunning === 0 && next.length === 0) return this.finish(ctx, step, list.length);
    const starts: Array<{ index: number; id: string; input: Record<string, unknown> }> = [];
    for (const index of next) {
      let input: unknown;
      try {
        input = renderDeep(sub.input ?? {}, { ...ctx.state, item: list[index], index });
      } catch (err) {
        if (err instanceof TemplateError) {
          return { kind: 'fail', error: `item ${index}: ${err.message}`, retryable: false };
        }
        throw err;
      }
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        return { kind: 'fail', error: 'step.input must render to a JSON object', retryable: false };
      }
      starts.push({ index, id: timeOrderedUuid(), input: input as Record<string, unknown> });
    }
    const effects = async (tx: StepTransaction) => {
      for (const start of starts) {
        if (!(await this.items.start(tx.client, ctx.stepRunId, start.index))) continue;
        await this.children.start(tx.client, {
          id: start.id,
          workspaceId: ctx.workspaceId,
          definition,
          input: start.input,
          parentRunId: ctx.runId,
          parentStepRunId: ctx.stepRunId,
          waitAttempt: ctx.attempt,
          depth,
          itemIndex: start.index,
        });
        tx.event('CHILD_RUN_STARTED', {
          stepName: step.name,
          childRunId: start.id,
          definitionId: definition.id,
          itemIndex: start.index,
        });
      }
    };
    return { kind: 'wait', dueAt: new Date(Date.now() + CHILD_CHECK_MS), effects };
  }

  /** Every item settled: the results in order, or a failure past `toleratedFailures`. */
  private async finish(ctx: StepContext, step: MapStep, total: number): Promise<StepOutcome> {
    const settled = await this.items.results(ctx.stepRunId);
    const failed = settled.filter((i) => i.status !== 'COMPLETED');
    const output = {
      results: settled.map((i) => (i.status === 'COMPLETED' ? i.output : null)),
      failedItems: failed.map((i) => ({ index: i.index, error: i.error })),
    };
    const tolerated = toleratedCount(step.toleratedFailures, total);
    if (failed.length > tolerated) {
      const first = failed[0];
      return {
        kind: 'fail',
        error:
          `${failed.length} of ${total} items failed, more than the ${tolerated} tolerated ` +
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
