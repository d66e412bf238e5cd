import { Injectable } from '@nestjs/common';
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
import { renderString, TemplateError } from '../common/templates';
import { timerDelay } from '../common/timers';
import { CostsRepository } from '../costs/costs.repository';
import { TaskHandlerRegistry } from '../handlers/task-handler.registry';
import { Metrics } from '../metrics/metrics';
import type { LlmStep } from '../steps/step-definition';
import type { StepContext, StepExecutor, StepOutcome } from '../steps/step-executor';
import { recordLlmUsage, traceLlmCall } from '../tracing/spans';
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
  | { ok: false; reason: string };

class CallTimeoutError extends Error {}

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
 */
@Injectable()
export class LlmStepExecutor implements StepExecutor {
  constructor(
    private readonly providers: LlmProviders,
    private readonly pricing: LlmPricing,
    private readonly handlers: TaskHandlerRegistry,
    private readonly costs: CostsRepository,
    private readonly metrics: Metrics,
  ) {}

  async execute(ctx: StepContext): Promise<StepOutcome> {
    const step = ctx.step as LlmStep;
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
    const reasons: string[] = [];
    for (let i = 0; i < models.length; i++) {
      ctx.abortSignal.throwIfAborted();
      const model = models[i];
      const result = await traceLlmCall(parseModelRef(model), () =>
        this.call(ctx, step, model, messages, timeoutMs),
      );
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

  /** One model: the call (with its tool round trips), its events and cost record, then the checks. */
  private async call(
    ctx: StepContext,
    step: LlmStep,
    model: string,
    messages: ModelMessage[],
    timeoutMs: number,
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
        const reason = timer.signal.aborted
          ? (timer.signal.reason as Error).message
          : this.providers.describeError(err);
        const payload: Record<string, unknown> = { model, error: reason };
        // Tool round trips before the failure used tokens the provider bills.
        const billed =
          usage.inputTokens + usage.outputTokens > 0
            ? this.recordCost(ctx, step, model, usage)
            : null;
        if (billed) Object.assign(payload, billed);
        this.metrics.llmCall(ctx.workspaceId, model, 'error', billed);
        ctx.emit('LLM_CALL_FAILED', payload);
        return { ok: false, reason };
      }
    } finally {
      clearTimeout(timeout);
    }

    const cost = this.recordCost(ctx, step, model, usage);
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
  ): { inputTokens: number; outputTokens: number; costUsd: number } {
    const { inputTokens, outputTokens } = usage;
    const priced = this.pricing.price(model, inputTokens, outputTokens);
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
