import { Inject, Injectable } from '@nestjs/common';
import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  stepCountIs,
  tool,
  type ModelMessage,
  type ToolSet,
} from 'ai';
import { APPROVAL_SIGNAL, ApprovalsRepository } from '../approvals/approvals.repository';
import { requestApproval } from '../approvals/request-approval';
import { BudgetDirectory } from '../budgets/budget-directory';
import { BudgetsRepository } from '../budgets/budgets.repository';
import { renderString, TemplateError } from '../common/templates';
import { timerDelay } from '../common/timers';
import { usdDecimal } from '../common/usd';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { CostsRepository } from '../costs/costs.repository';
import { TaskHandlerRegistry } from '../handlers/task-handler.registry';
import { Metrics } from '../metrics/metrics';
import type { LlmStep } from '../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../steps/step-executor';
import { recordLlmUsage, traceLlmCall } from '../tracing/spans';
import { BudgetGate, BudgetStop, type BudgetDenial } from './budget-gate';
import { inputTokenBound, toolsBytes } from './budget-estimate';
import { checkGuardrails, JsonAnswerError, parseJsonAnswer } from './guardrails';
import { parseModelRef } from './model-ref';
import { LlmPricing } from './pricing';
import { LlmProviders } from './providers';

/** Per-call timeout when the step has no timeoutMs. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_TOOL_ROUNDTRIPS = 5;

export interface ToolCallRecord {
  tool: string;
  input: unknown;
  output?: unknown;
  error?: string;
  durationMs: number;
}

type CallResult =
  | {
      ok: true;
      text: string;
      json?: unknown;
      inputTokens: number;
      outputTokens: number;
      costUsd: number;
      toolCalls: ToolCallRecord[];
    }
  /** `budget`: a budget stopped the call before one of its tool round trips. */
  | { ok: false; reason: string; budget?: BudgetDenial };

class CallTimeoutError extends Error {}

/** The contentKey of the approval request an llm step over its budget makes (not a state path). */
export const BUDGET_APPROVAL_CONTENT_KEY = '$budget';

/** The decision on the approval request of an llm step over its budget, when it woke the step. */
interface BudgetDecision {
  approvalRequestId: string;
  decision: 'approved' | 'edited' | 'rejected';
  decidedBy: string;
  comment: string | null;
}

function budgetDecisionOf(ctx: StepContext): BudgetDecision | undefined {
  if (ctx.wake !== 'signal' || ctx.signal?.signalType !== APPROVAL_SIGNAL) return undefined;
  const p = ctx.signal.payload as Partial<BudgetDecision>;
  return typeof p.approvalRequestId === 'string' && typeof p.decision === 'string'
    ? (p as BudgetDecision)
    : undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The `llm` step (design §5): messages templated from the run state, the primary model then each
 * fallback model, tools run as task handlers, guardrails checked on the answer, JSON answers parsed.
 * Every call is recorded as run events and, when the provider answered, as a cost record written in
 * the step's transaction. When every model fails the step fails and its retry policy applies.
 *
 * Timeouts: `timeoutMs` bounds each call (60 s when unset), so a primary model that times out still
 * leaves its fallbacks their full time. The executor does not apply a whole-step timer to llm steps.
 *
 * Budgets (README "Budgets"): when the workspace has a monthly budget or the definition or the step a
 * maxCostUsd, every provider request (each model, each tool round trip) is reserved first at its worst
 * case (BudgetGate); one a budget cannot cover does not start: BUDGET_EXCEEDED, then the step fails
 * without retries, or pauses on an approval request (onBudgetExceeded "approval") whose decision wakes
 * it again.
 */
@Injectable()
export class LlmStepExecutor implements StepExecutor {
  constructor(
    private readonly providers: LlmProviders,
    private readonly pricing: LlmPricing,
    private readonly handlers: TaskHandlerRegistry,
    private readonly costs: CostsRepository,
    private readonly metrics: Metrics,
    private readonly budgets: BudgetsRepository,
    private readonly budgetDirectory: BudgetDirectory,
    private readonly approvals: ApprovalsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as LlmStep;
    // Woken by the decision on the approval request this step made when a budget stopped it.
    const decision = budgetDecisionOf(ctx);
    if (decision?.decision === 'rejected') return this.budgetRejected(ctx, decision);
    let messages: ModelMessage[];
    try {
      messages = step.messages.map((m) => ({
        role: m.role,
        content: renderString(m.content, ctx.state),
      }));
    } catch (err) {
      if (err instanceof TemplateError) {
        return { kind: 'fail', error: err.message, retryable: false };
      }
      throw err;
    }
    for (const t of step.tools ?? []) {
      if (!this.handlers.get(t.handler)) {
        return {
          kind: 'fail',
          error: `unknown task handler "${t.handler}" for tool "${t.name}"`,
          retryable: false,
        };
      }
    }

    const models = [step.model, ...(step.fallbackModels ?? [])];
    const timeoutMs = step.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const gate = this.gateFor(ctx, step, decision !== undefined);
    const reasons: string[] = [];
    for (let i = 0; i < models.length; i++) {
      ctx.abortSignal.throwIfAborted();
      const model = models[i];
      if (gate) {
        const denial = await gate.reserve(this.worstCaseUsd(step, model, messages));
        if (denial) return this.overBudget(ctx, step, model, denial);
      }
      const result = await traceLlmCall(parseModelRef(model), () =>
        this.call(ctx, step, model, messages, timeoutMs, gate),
      );
      if (!result.ok && result.budget) return this.overBudget(ctx, step, model, result.budget);
      if (result.ok) {
        const output: Record<string, unknown> = {
          text: result.text,
          model,
          inputTokens: result.inputTokens,
          outputTokens: result.outputTokens,
          costUsd: result.costUsd,
          toolCalls: result.toolCalls,
        };
        if (result.json !== undefined) output.json = result.json;
        return { kind: 'complete', output };
      }
      reasons.push(result.reason);
      if (i + 1 < models.length) {
        ctx.emit('LLM_FALLBACK_TRIGGERED', {
          model: models[i + 1],
          fromModel: model,
          reason: result.reason,
        });
      }
    }
    const error =
      models.length === 1
        ? reasons[0]
        : `all ${models.length} models failed: ${models.map((m, i) => `${m}: ${reasons[i]}`).join('; ')}`;
    return { kind: 'fail', error, retryable: true };
  }

  /**
   * The budgets of this execution, or null when none applies: no maxCostUsd on the step or the
   * definition, and a workspace that the directory knows has no monthly budget. That case, most
   * workspaces', costs no round trip and no lock. `approved`: a human let this execution go past its
   * budget (its calls are still reserved, so that other steps see them).
   */
  private gateFor(ctx: StepContext, step: LlmStep, approved: boolean): BudgetGate | null {
    const run = ctx.definition.maxCostUsd;
    const own = step.maxCostUsd === undefined ? null : usdDecimal(step.maxCostUsd);
    if (run === null && own === null && !approved) {
      if (!this.budgetDirectory.mayHaveBudget(ctx.workspaceId)) return null;
    }
    return new BudgetGate(this.budgets, ctx, { run, step: own }, approved);
  }

  /**
   * The most a request to `model` with `messages` can cost: inputTokenBound of its input and the
   * step's maxTokens of output (LLM_BUDGET_DEFAULT_MAX_TOKENS when unset), at the model's price.
   */
  private worstCaseUsd(step: LlmStep, model: string, messages: unknown): string {
    const output = step.maxTokens ?? this.config.budgets.defaultMaxTokens;
    return this.pricing.price(model, inputTokenBound(messages, toolsBytes(step)), output).costUsd;
  }

  /**
   * A budget stopped a request: BUDGET_EXCEEDED, then the step fails without retries (a retry would
   * meet the same budget), or, with onBudgetExceeded "approval" (the step's, else the definition's),
   * the run pauses on an approval request saying which budget and how much.
   */
  private async overBudget(
    ctx: StepContext,
    step: LlmStep,
    model: string,
    denial: BudgetDenial,
  ): Promise<StepOutcome> {
    const onExceeded = step.onBudgetExceeded ?? ctx.definition.onBudgetExceeded ?? 'fail';
    const figures = {
      budget: denial.budget,
      limitUsd: Number(denial.limitUsd),
      spentUsd: Number(denial.spentUsd),
      reservedUsd: Number(denial.reservedUsd),
      callCostUpToUsd: Number(denial.requestUsd),
    };
    ctx.emit('BUDGET_EXCEEDED', {
      stepName: step.name,
      model,
      ...figures,
      onBudgetExceeded: onExceeded,
    });
    if (onExceeded !== 'approval') {
      return { kind: 'fail', error: denial.message, retryable: false };
    }
    const { pendingApprovalsPerWorkspace } = this.config.limits;
    const awaiting = await this.approvals.countAwaitingDecision(ctx.workspaceId);
    if (awaiting >= pendingApprovalsPerWorkspace) {
      return {
        kind: 'fail',
        error:
          `${denial.message}; no approval could be requested: the workspace already has ` +
          `${awaiting} approval requests awaiting a decision (MAX_PENDING_APPROVALS_PER_WORKSPACE)`,
        retryable: false,
      };
    }
    const content = { ...figures, stepName: step.name, model, message: denial.message };
    const prompt =
      `${denial.message}. Approve to let this execution of step "${step.name}" make its LLM calls ` +
      'past the budget; reject to fail the step.';
    return {
      kind: 'pause',
      effects: async (tx) => {
        await requestApproval(this.approvals, tx, {
          stepName: step.name,
          contentKey: BUDGET_APPROVAL_CONTENT_KEY,
          content,
          prompt,
        });
      },
    };
  }

  /** The budget approval was rejected: the step fails with the budget's message, without retries. */
  private async budgetRejected(ctx: StepContext, d: BudgetDecision): Promise<StepOutcome> {
    const request = await this.approvals.get(ctx.workspaceId, d.approvalRequestId);
    const message =
      typeof request?.content.message === 'string' ? request.content.message : 'LLM budget used up';
    const by = `rejected by ${d.decidedBy}${d.comment ? `: ${d.comment}` : ''}`;
    return { kind: 'fail', error: `${message}; ${by}`, retryable: false };
  }

  /** One model: the call (with its tool round trips), its events and cost record, then the checks. */
  private async call(
    ctx: StepContext,
    step: LlmStep,
    model: string,
    messages: ModelMessage[],
    timeoutMs: number,
    gate: BudgetGate | null,
  ): Promise<CallResult> {
    ctx.emit('LLM_CALL_STARTED', { model });
    const resolved = this.providers.resolve(model);
    const timer = new AbortController();
    const timeout = setTimeout(
      () => timer.abort(new CallTimeoutError(`timed out after ${timeoutMs} ms`)),
      timerDelay(timeoutMs),
    );
    timeout.unref();
    const signal = AbortSignal.any([ctx.abortSignal, timer.signal]);
    const usage = { inputTokens: 0, outputTokens: 0 };
    const toolCalls: ToolCallRecord[] = [];
    const roundtrips = step.maxToolRoundtrips ?? DEFAULT_MAX_TOOL_ROUNDTRIPS;
    const tools = roundtrips > 0 ? this.toolSet(ctx, step, model, toolCalls) : undefined;
    const wantsJson = step.responseFormat === 'json';

    let text: string;
    let finishReason: string;
    try {
      const result = await generateText({
        model: resolved.model,
        messages,
        allowSystemInMessages: true,
        temperature: step.temperature,
        maxOutputTokens: step.maxTokens,
        // Fallbacks and step retries are ours; the SDK must not retry on its own.
        maxRetries: 0,
        abortSignal: signal,
        tools,
        stopWhen: stepCountIs(roundtrips + 1),
        // JSON mode where the provider has one (Chat Completions' response_format json_object).
        ...(wantsJson && resolved.provider === 'openai' ? { output: Output.json() } : {}),
        onStepFinish: (s) => {
          usage.inputTokens += s.usage.inputTokens ?? 0;
          usage.outputTokens += s.usage.outputTokens ?? 0;
        },
        // Each tool round trip is a provider request of its own: its budgets are checked first.
        ...(gate ? { prepareStep: this.budgetCheck(gate, step, model, usage) } : {}),
      });
      text = result.text;
      finishReason = result.finishReason;
    } catch (err) {
      if (NoObjectGeneratedError.isInstance(err)) {
        // The provider answered but the answer is not JSON: checked below like any answer.
        text = err.text ?? '';
        finishReason = 'stop';
      } else {
        clearTimeout(timeout);
        if (ctx.abortSignal.aborted) throw err;
        const budget = err instanceof BudgetStop ? err.denial : undefined;
        const reason = budget
          ? budget.message
          : timer.signal.aborted
            ? (timer.signal.reason as Error).message
            : this.providers.describeError(err);
        const payload: Record<string, unknown> = { model, error: reason };
        // Tool round trips before the failure used tokens the provider bills.
        const billed =
          usage.inputTokens + usage.outputTokens > 0
            ? this.recordCost(ctx, step, model, usage, gate)
            : null;
        if (billed) Object.assign(payload, billed);
        this.metrics.llmCall(ctx.workspaceId, model, 'error', billed);
        ctx.emit('LLM_CALL_FAILED', payload);
        return { ok: false, reason, budget };
      }
    } finally {
      clearTimeout(timeout);
    }

    const cost = this.recordCost(ctx, step, model, usage, gate);
    this.metrics.llmCall(ctx.workspaceId, model, 'success', cost);
    ctx.emit('LLM_CALL_COMPLETED', { model, ...cost });

    const guardrail = (name: string, reason: string): CallResult => {
      ctx.emit('GUARDRAIL_TRIGGERED', { model, guardrail: name, reason });
      return { ok: false, reason: `guardrail ${name}: ${reason}` };
    };
    if (finishReason === 'tool-calls') {
      const reason = `the model still called tools after ${roundtrips} tool round trips`;
      ctx.emit('LLM_CALL_FAILED', { model, error: reason });
      return { ok: false, reason };
    }
    let json: unknown;
    if (wantsJson) {
      try {
        json = parseJsonAnswer(text);
      } catch (err) {
        if (err instanceof JsonAnswerError) return guardrail('responseFormat', err.message);
        throw err;
      }
    }
    const violation = checkGuardrails(text, json, step.guardrails);
    if (violation) return guardrail(violation.guardrail, violation.reason);
    return { ok: true, text, json, ...cost, toolCalls };
  }

  /** Prices the call and registers its cost record for the step's transaction. */
  private recordCost(
    ctx: StepContext,
    step: LlmStep,
    model: string,
    usage: { inputTokens: number; outputTokens: number },
    gate: BudgetGate | null,
  ): { inputTokens: number; outputTokens: number; costUsd: number } {
    const { inputTokens, outputTokens } = usage;
    const priced = this.pricing.price(model, inputTokens, outputTokens);
    gate?.billed(priced.costUsd);
    recordLlmUsage(inputTokens, outputTokens, Number(priced.costUsd));
    const createdAt = new Date();
    ctx.onCommit(async (tx) => {
      await this.costs.insert(tx.client, {
        workspaceId: tx.workspaceId,
        runId: tx.runId,
        stepRunId: tx.stepRunId,
        stepName: step.name,
        model,
        inputTokens,
        outputTokens,
        inputPerMillion: priced.inputPerMillion,
        outputPerMillion: priced.outputPerMillion,
        createdAt,
      });
    });
    return { inputTokens, outputTokens, costUsd: Number(priced.costUsd) };
  }

  /**
   * Before each tool round trip of a call (the SDK's prepareStep; the first request was reserved
   * before the call started): reserves its worst case on top of what the call's earlier round trips
   * cost, and stops the call with BudgetStop when a budget cannot cover it.
   */
  private budgetCheck(
    gate: BudgetGate,
    step: LlmStep,
    model: string,
    usage: { inputTokens: number; outputTokens: number },
  ) {
    return async ({ stepNumber, messages }: { stepNumber: number; messages: ModelMessage[] }) => {
      if (stepNumber === 0) return {};
      const spent = this.pricing.price(model, usage.inputTokens, usage.outputTokens).costUsd;
      const denial = await gate.reserve(this.worstCaseUsd(step, model, messages), spent);
      if (denial) throw new BudgetStop(denial);
      return {};
    };
  }

  /** The step's tools, each running its task handler with the model's arguments as config. */
  private toolSet(
    ctx: StepContext,
    step: LlmStep,
    model: string,
    calls: ToolCallRecord[],
  ): ToolSet | undefined {
    if (!step.tools?.length) return undefined;
    const set: ToolSet = {};
    for (const t of step.tools) {
      const handler = this.handlers.get(t.handler)!;
      set[t.name] = tool({
        description: t.description,
        inputSchema: jsonSchema<unknown>(t.parameters as Parameters<typeof jsonSchema>[0]),
        execute: async (input: unknown, options) => {
          const started = Date.now();
          const record = (extra: Partial<ToolCallRecord>) => {
            const durationMs = Date.now() - started;
            calls.push({ tool: t.name, input, durationMs, ...extra });
            ctx.emit('TOOL_CALL_EXECUTED', {
              model,
              tool: t.name,
              durationMs,
              ...(extra.error !== undefined ? { error: extra.error } : {}),
            });
          };
          try {
            if (!isPlainObject(input)) throw new Error('tool arguments must be a JSON object');
            const output = await handler.handle({
              config: input,
              state: ctx.state,
              signal: options.abortSignal ?? ctx.abortSignal,
              attempt: ctx.attempt,
              runId: ctx.runId,
              workspaceId: ctx.workspaceId,
              stepName: step.name,
            });
            record({ output });
            return output;
          } catch (err) {
            // The SDK hands the error text back to the model as the tool's result.
            record({ error: errorMessage(err) });
            throw err;
          }
        },
      });
    }
    return set;
  }
}
