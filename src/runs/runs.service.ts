import { Inject, Injectable } from '@nestjs/common';
import type { CachedKeyCheck } from '../common/auth';
import { JsonData, Paginated } from '../common/envelope';
import {
  ConflictError,
  LimitExceededError,
  NotFoundError,
  ValidationError,
} from '../common/errors';
import { isUuid } from '../common/ids';
import { jsonWithin } from '../common/limits';
import { offsetOf, PageQueryDto } from '../common/pagination';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { DefinitionsRepository } from '../definitions/definitions.repository';
import {
  CreateRunDto,
  ListRunsQueryDto,
  ResumeRunDto,
  RunDto,
  RunEventDto,
  RunTransitionDto,
  StepRunDto,
} from './dto/run.dto';
import { SendSignalDto, SignalDto } from './dto/signal.dto';
import { payloadPreview } from './signal-preview';
import { traceparentForRun } from '../tracing/spans';
import { RunQueue, type RunRow, type TransitionResult } from '../queue/run-queue';
import { RunsRepository, type EventRow } from './runs.repository';

export function toRunDto(row: RunRow, withStepIndex: boolean): RunDto {
  const dto: RunDto = {
    id: row.id,
    workspaceId: row.workspace_id,
    definitionId: row.definition_id,
    status: row.status,
    input: row.input,
    output: row.output,
    error: row.error,
    idempotencyKey: row.idempotency_key,
    scheduleId: row.schedule_id,
    parentRunId: row.parent_run_id,
    parentStepRunId: row.parent_step_run_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (withStepIndex) dto.currentStepIndex = row.current_step_index;
  return dto;
}

/** A run event as the API answers it: in the events list, and as the data of each stream message. */
export function toRunEventDto(e: EventRow): RunEventDto {
  return {
    id: e.id,
    workflowRunId: e.run_id,
    stepRunId: e.step_run_id,
    eventType: e.event_type,
    payload: e.payload,
    createdAt: e.created_at.toISOString(),
  };
}

const NOT_WAITING = 'run is not in a waiting state';

@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly queue: RunQueue,
    private readonly definitions: DefinitionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `traceparent` is the request's header: with tracing off, a well-formed one is stored with the run
   * as is; with tracing on, the request's own span is (README "Tracing"). `scheduleId`: the schedule
   * whose "trigger now" starts the run. `key`: a cached API key the create's statement settles
   * (README "API key cache"), here and in list and get.
   */
  async create(
    workspaceId: string,
    dto: CreateRunDto,
    traceparent?: string,
    scheduleId?: string,
    key?: CachedKeyCheck,
  ): Promise<{ run: RunDto; created: boolean }> {
    // Named in the body, not the path (so not IdPipe's): malformed, it names no definition either.
    if (!isUuid(dto.definitionId)) throw new NotFoundError('workflow definition');
    const { runInputBytes } = this.config.limits;
    jsonWithin(dto.input ?? {}, runInputBytes, 'input', 'MAX_RUN_INPUT_BYTES');
    const result = await this.queue.create(
      workspaceId,
      dto.definitionId,
      dto.input ?? {},
      dto.idempotencyKey,
      traceparentForRun(traceparent),
      scheduleId ?? null,
      key,
    );
    if (!result) throw new NotFoundError('workflow definition');
    return { run: toRunDto(result.run, true), created: result.created };
  }

  /** A page of runs, as the database wrote it (JsonData: runs as toRunDto writes them). */
  async list(workspaceId: string, q: ListRunsQueryDto, key?: CachedKeyCheck): Promise<JsonData> {
    const createdFrom = q.createdFrom === undefined ? undefined : new Date(q.createdFrom);
    const createdTo = q.createdTo === undefined ? undefined : new Date(q.createdTo);
    if (createdFrom && createdTo && createdFrom.getTime() >= createdTo.getTime()) {
      throw ValidationError.field('createdFrom', 'createdFrom must be before createdTo');
    }
    // A filter, not a path id: a malformed one matches no run, an empty page rather than a 404.
    for (const id of [q.definitionId, q.scheduleId, q.parentRunId]) {
      if (id !== undefined && !isUuid(id)) {
        return new JsonData('[]', { page: q.page, pageSize: q.pageSize, total: 0 });
      }
    }
    const { json, total } = await this.runs.list(
      workspaceId,
      {
        status: q.status,
        definitionId: q.definitionId,
        scheduleId: q.scheduleId,
        parentRunId: q.parentRunId,
        createdFrom,
        createdTo,
      },
      q.pageSize,
      offsetOf(q),
      key,
    );
    return new JsonData(json, { page: q.page, pageSize: q.pageSize, total });
  }

  /** One run with its buffered signals (RunDetailDto), as the database wrote it. */
  async get(workspaceId: string, id: string, key?: CachedKeyCheck): Promise<JsonData> {
    const json = await this.runs.getDetail(workspaceId, id, key);
    if (json === undefined) throw new NotFoundError('workflow run');
    return new JsonData(json);
  }

  async cancel(workspaceId: string, id: string): Promise<RunTransitionDto> {
    return this.answer(
      await this.queue.cancel(workspaceId, id),
      (status) => `run is ${status} and cannot be cancelled`,
    );
  }

  async resume(workspaceId: string, id: string, dto: ResumeRunDto): Promise<RunTransitionDto> {
    const { signalPayloadBytes } = this.config.limits;
    jsonWithin(dto.payload ?? {}, signalPayloadBytes, 'payload', 'MAX_SIGNAL_PAYLOAD_BYTES');
    const result = await this.queue.resume(workspaceId, id, dto.signalType, dto.payload ?? {});
    return this.answer(result, () => NOT_WAITING);
  }

  /**
   * POST …/signals (README "Signals"): the payload checked against MAX_SIGNAL_PAYLOAD_BYTES (413)
   * before anything is read, then delivered or buffered under the run's lock. A run that has ended is
   * 409, and so is one already holding MAX_BUFFERED_SIGNALS_PER_RUN signals (with the limit in
   * `details`, like the other count limits).
   */
  async signal(workspaceId: string, id: string, dto: SendSignalDto): Promise<SignalDto> {
    const { signalPayloadBytes, bufferedSignalsPerRun } = this.config.limits;
    const payload = dto.payload === undefined ? {} : dto.payload;
    const payloadJson = jsonWithin(
      payload,
      signalPayloadBytes,
      'payload',
      'MAX_SIGNAL_PAYLOAD_BYTES',
    );
    const result = await this.queue.signal(
      workspaceId,
      id,
      {
        signalType: dto.signalType,
        payload,
        payloadJson,
        payloadBytes: Buffer.byteLength(payloadJson, 'utf8'),
        payloadPreview: payloadPreview(payloadJson),
      },
      bufferedSignalsPerRun,
    );
    if (result.ok) return { id: result.id, signalType: dto.signalType, status: result.status };
    switch (result.reason) {
      case 'not-found':
        throw new NotFoundError('workflow run');
      case 'terminal':
        throw new ConflictError(
          `run is ${result.status}; signals are accepted only until the run ends`,
        );
      case 'full':
        throw new LimitExceededError(
          409,
          'body',
          { name: 'MAX_BUFFERED_SIGNALS_PER_RUN', value: bufferedSignalsPerRun },
          `the run already holds ${result.buffered} buffered signals, the most allowed ` +
            '(MAX_BUFFERED_SIGNALS_PER_RUN); an external_event step of their type must consume one first',
        );
    }
  }

  async retry(workspaceId: string, id: string): Promise<RunTransitionDto> {
    const result = await this.queue.retry(workspaceId, id, async (definitionId) => {
      const def = await this.definitions.get(workspaceId, definitionId);
      return def?.steps ?? [];
    });
    return this.answer(result, (status) => `run is ${status}; only FAILED runs can be retried`);
  }

  async events(workspaceId: string, id: string, q: PageQueryDto): Promise<Paginated<RunEventDto>> {
    if (!(await this.runs.exists(workspaceId, id))) {
      throw new NotFoundError('workflow run');
    }
    const { rows, total } = await this.runs.events(workspaceId, id, q.pageSize, offsetOf(q));
    return new Paginated(rows.map(toRunEventDto), q.page, q.pageSize, total);
  }

  async steps(workspaceId: string, id: string): Promise<StepRunDto[]> {
    if (!(await this.runs.exists(workspaceId, id))) {
      throw new NotFoundError('workflow run');
    }
    return (await this.runs.steps(workspaceId, id)).map((s) => ({
      id: s.id,
      stepIndex: s.step_index,
      stepName: s.step_name,
      stepType: s.step_type,
      status: s.status,
      attempt: s.attempt,
      output: s.output,
      error: s.error,
      startedAt: s.started_at?.toISOString() ?? null,
      completedAt: s.completed_at?.toISOString() ?? null,
    }));
  }

  private answer(result: TransitionResult, badState: (status: string) => string): RunTransitionDto {
    if (result.ok) {
      return {
        id: result.run.id,
        status: result.run.status,
        updatedAt: result.run.updated_at.toISOString(),
      };
    }
    switch (result.reason) {
      case 'not-found':
        throw new NotFoundError('workflow run');
      case 'bad-state':
        throw new ConflictError(badState(result.status));
      case 'signal-mismatch':
        throw new ConflictError(
          `signal type mismatch: the run is waiting for "${result.expected}"`,
        );
    }
  }
}
