/** The step shapes of design §4 and §5, as stored in a definition (already validated). */
export interface RetryPolicy {
  maxAttempts?: number;
  initialDelayMs?: number;
  backoffMultiplier?: number;
  maxDelayMs?: number;
}

interface BaseStep {
  name: string;
  outputKey?: string;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

export interface TaskStep extends BaseStep {
  type: 'task';
  handler: string;
  config?: Record<string, unknown>;
}

export interface WaitStep extends BaseStep {
  type: 'wait';
  durationMs?: number;
  until?: string;
}

export interface ConditionStep extends BaseStep {
  type: 'condition';
  expression: string;
  then?: string;
  else?: string;
}

export interface ExternalEventStep extends BaseStep {
  type: 'external_event';
  signalType?: string;
}

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmTool {
  name: string;
  description?: string;
  handler: string;
  parameters: Record<string, unknown>;
}

export interface LlmGuardrails {
  maxOutputChars?: number;
  blockedPatterns?: string[];
  requiredPatterns?: string[];
  jsonSchema?: Record<string, unknown>;
}

export interface LlmStep extends BaseStep {
  type: 'llm';
  model: string;
  messages: LlmMessage[];
  temperature?: number;
  maxTokens?: number;
  fallbackModels?: string[];
  tools?: LlmTool[];
  guardrails?: LlmGuardrails;
  responseFormat?: 'text' | 'json';
  maxToolRoundtrips?: number;
  /** USD, at most 6 decimals: the most this step's calls may cost in one run. */
  maxCostUsd?: number;
  onBudgetExceeded?: 'fail' | 'approval';
}

export interface ApprovalStep extends BaseStep {
  type: 'approval';
  contentKey: string;
  prompt?: string;
  regenerateFrom?: string;
  /** Names or groups the request is for (the list filters by them). */
  assignees?: string[];
  /** Distinct deciders who must approve (default 1); one rejection rejects. */
  requiredApprovals?: number;
  /** `timeoutMs` (BaseStep) is the request's timeout; what happens at the last one: */
  onTimeout?: 'reject' | 'approve' | 'fail';
  /** At the first timeout: new assignees and a second timeout. */
  escalateTo?: { assignees: string[]; timeoutMs?: number };
}

export interface WorkflowStep extends BaseStep {
  type: 'workflow';
  definitionId?: string;
  definitionName?: string;
  version?: string;
  input?: Record<string, unknown>;
  waitForCompletion?: boolean;
}

export interface MapStep extends BaseStep {
  type: 'map';
  items: string;
  step: TaskStep | Record<string, unknown>;
  maxConcurrency?: number;
  toleratedFailures?: number | string;
  maxItems?: number;
}

export type StepDefinition =
  | TaskStep
  | WaitStep
  | ConditionStep
  | ExternalEventStep
  | LlmStep
  | ApprovalStep
  | WorkflowStep
  | MapStep;

export interface ResolvedRetryPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  backoffMultiplier: number;
  maxDelayMs: number;
}

/** The step's retry policy; attempts default to its type's (the descriptor's defaultMaxAttempts). */
export function retryPolicyOf(
  step: StepDefinition,
  defaultMaxAttempts: number,
): ResolvedRetryPolicy {
  return {
    maxAttempts: step.retry?.maxAttempts ?? defaultMaxAttempts,
    initialDelayMs: step.retry?.initialDelayMs ?? 1000,
    backoffMultiplier: step.retry?.backoffMultiplier ?? 2,
    maxDelayMs: step.retry?.maxDelayMs ?? 60000,
  };
}

/** Delay before attempt `nextAttempt` (2, 3, ...): initial * multiplier^(n-2), capped. */
export function retryDelayMs(policy: ResolvedRetryPolicy, nextAttempt: number): number {
  const raw =
    policy.initialDelayMs * Math.pow(policy.backoffMultiplier, Math.max(0, nextAttempt - 2));
  return Math.min(Math.round(raw), policy.maxDelayMs);
}

export function outputKeyOf(step: StepDefinition): string {
  return step.outputKey ?? step.name;
}
