/**
 * The typed client of the service's HTTP API, for the tests and the console. Its types come from
 * client/schema.ts, generated from the OpenAPI document the service serves (`npm run
 * openapi:generate`); the requests go through openapi-fetch. Browser-safe: it uses the global `fetch`
 * and imports nothing from Node.
 *
 *   const api = createApiClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const { data, error } = await api.GET('/v1/workflow-runs/{id}', { params: { path: { id } } });
 *   if (data) console.log(data.data.status); else console.error(error.error.code);
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

type Schemas = components['schemas'];

export type Workspace = Schemas['WorkspaceDto'];
export type CreateWorkspaceRequest = Schemas['CreateWorkspaceDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];
export type CreateApiKeyRequest = Schemas['CreateApiKeyDto'];
/** What a key may do (README "Scopes"). */
export type Scope = ApiKey['scopes'][number];
export type Definition = Schemas['DefinitionDto'];
export type CreateDefinitionRequest = Schemas['CreateDefinitionDto'];
export type Run = Schemas['RunDto'];
export type CreateRunRequest = Schemas['CreateRunDto'];
export type ResumeRunRequest = Schemas['ResumeRunDto'];
/** The single-run read (GET /v1/workflow-runs/:id): the run with its buffered signals. */
export type RunDetail = Schemas['RunDetailDto'];
export type BufferedSignal = Schemas['BufferedSignalDto'];
export type SendSignalRequest = Schemas['SendSignalDto'];
/** The answer of POST /v1/workflow-runs/:id/signals. */
export type Signal = Schemas['SignalDto'];
export type RunTransition = Schemas['RunTransitionDto'];
export type RunEvent = Schemas['RunEventDto'];
export type Schedule = Schemas['ScheduleDto'];
export type CreateScheduleRequest = Schemas['CreateScheduleDto'];
export type UpdateScheduleRequest = Schemas['UpdateScheduleDto'];
export type DeletedSchedule = Schemas['DeletedScheduleDto'];
export type StepRun = Schemas['StepRunDto'];
export type ApprovalRequest = Schemas['ApprovalRequestDto'];
export type ApprovalDecision = Schemas['ApprovalDecisionDto'];
export type DecideApprovalRequest = Schemas['DecideApprovalDto'];
export type RunCost = Schemas['RunCostDto'];
export type CostSummary = Schemas['CostSummaryDto'];
export type CostSeries = Schemas['CostSeriesDto'];
export type CostSeriesPoint = Schemas['CostSeriesPointDto'];
export type CostByDefinition = Schemas['CostByDefinitionDto'];
export type DefinitionCost = Schemas['DefinitionCostDto'];
export type ApprovalCount = Schemas['ApprovalCountDto'];
/** The workspace's monthly LLM budget (GET/PUT /v1/workspaces/current/budget). */
export type Budget = Schemas['BudgetDto'];
export type PutBudgetRequest = Schemas['PutBudgetDto'];
/** The console session (POST/GET /v1/console/session). */
export type Session = Schemas['SessionDto'];
export type SignInRequest = Schemas['SignInDto'];
export type SignedOut = Schemas['SignedOutDto'];
export type Webhook = Schemas['WebhookDto'];
export type CreatedWebhook = Schemas['CreatedWebhookDto'];
export type CreateWebhookRequest = Schemas['CreateWebhookDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
/** The JSON body of a webhook delivery (no endpoint answers it; receivers get it). */
export type WebhookEventPayload = Schemas['WebhookEventPayloadDto'];
export type PageMeta = Schemas['PageMeta'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type RunStatus = Run['status'];

/** `{success: true, data}` around `T`. */
export interface Envelope<T> {
  success: true;
  data: T;
}

/** `{success: true, data, meta}` of a paginated list. */
export interface Page<T> extends Envelope<T[]> {
  meta: PageMeta;
}

export interface ApiClientOptions {
  /** Where the service answers, e.g. `http://localhost:3000` (no trailing `/v1`). */
  baseUrl: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Sent as `x-admin-token` (workspace creation and first keys when ADMIN_TOKEN is set). */
  adminToken?: string;
  /** Another `fetch` (tests, a proxy); the global one by default. */
  fetch?: ClientOptions['fetch'];
}

export type ApiClient = Client<paths>;

/** A client for every operation of the document, typed by path, method, parameters and answers. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  if (options.adminToken !== undefined) headers['x-admin-token'] = options.adminToken;
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}
