import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type {
  CreateDefinitionRequest,
  CreateRunRequest,
  Definition,
  Envelope,
  Page,
  Run,
  RunDetail,
  RunEvent,
} from '../../client';

export type Step = Record<string, unknown>;

/** A run as the single-run read answers it (with currentStepIndex and its buffered signals). */
export type RunView = RunDetail & { currentStepIndex: number };

export type EventView = RunEvent;

/** Registers a definition with a unique name and returns its id. */
export async function createDefinition(
  http: TestAgent,
  key: string,
  steps: Step[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const body: CreateDefinitionRequest = {
    name: `wf-${randomBytes(4).toString('hex')}`,
    version: '1',
    steps: steps as CreateDefinitionRequest['steps'],
    ...extra,
  };
  const res = await http.post('/v1/workflow-definitions').set('x-api-key', key).send(body);
  if (res.status !== 201) throw new Error(`definition creation failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<Definition>).data.id;
}

export async function startRun(
  http: TestAgent,
  key: string,
  definitionId: string,
  input: Record<string, unknown> = {},
): Promise<string> {
  const body: CreateRunRequest = { definitionId, input };
  const res = await http.post('/v1/workflow-runs').set('x-api-key', key).send(body);
  if (res.status !== 201) throw new Error(`run creation failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<Run>).data.id;
}

export async function getRun(http: TestAgent, key: string, runId: string): Promise<RunView> {
  const res = await http.get(`/v1/workflow-runs/${runId}`).set('x-api-key', key);
  if (res.status !== 200) throw new Error(`run read failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<RunView>).data;
}

/** Polls until the run reaches one of `statuses`, or fails the test at the deadline. */
export async function waitForRun(
  http: TestAgent,
  key: string,
  runId: string,
  statuses: string | string[],
  timeoutMs = 20_000,
): Promise<RunView> {
  const wanted = Array.isArray(statuses) ? statuses : [statuses];
  const deadline = Date.now() + timeoutMs;
  let last: RunView | undefined;
  while (Date.now() < deadline) {
    last = await getRun(http, key, runId);
    if (wanted.includes(last.status)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `run ${runId} did not reach ${wanted.join('/')} within ${timeoutMs} ms (last: ${last?.status}, error: ${last?.error})`,
  );
}

/** All events of a run, oldest first (follows pagination). */
export async function runEvents(http: TestAgent, key: string, runId: string): Promise<EventView[]> {
  const all: EventView[] = [];
  for (let page = 1; ; page++) {
    const res = await http
      .get(`/v1/workflow-runs/${runId}/events?page=${page}&pageSize=100`)
      .set('x-api-key', key);
    if (res.status !== 200) throw new Error(`events read failed: ${res.status} ${res.text}`);
    const body = res.body as Page<RunEvent>;
    all.push(...body.data);
    if (page >= body.meta.totalPages) return all;
  }
}

/** Polls `check` until it returns a truthy value, or fails at the deadline. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
