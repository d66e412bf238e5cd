import { Inject, Injectable } from '@nestjs/common';
import { Paginated } from '../common/envelope';
import { LimitExceededError, NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import { jsonWithin } from '../common/limits';
import { offsetOf } from '../common/pagination';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import type { RunDto } from '../runs/dto/run.dto';
import { RunsService } from '../runs/runs.service';
import {
  canonicalTimeZone,
  CronSchedule,
  jitterFor,
  NEXT_FIRE_TIMES,
  ScheduleInputError,
} from './cron';
import {
  CreateScheduleDto,
  DEFAULT_CATCHUP_WINDOW_MS,
  DeletedScheduleDto,
  ListSchedulesQueryDto,
  ScheduleDto,
  UpdateScheduleDto,
} from './dto/schedule.dto';
import { SchedulerClock } from './scheduler-clock';
import { SchedulesRepository, type ScheduleFields, type ScheduleRow } from './schedules.repository';

/** The fire after `now` and its jitter-delayed due time; none while paused. */
function firstFire(
  cron: CronSchedule,
  id: string,
  jitterMs: number,
  paused: boolean,
  now: Date,
): { nextFireAt: Date | null; dueAt: Date | null } {
  const next = paused ? null : cron.next(now);
  if (!next) return { nextFireAt: null, dueAt: null };
  return { nextFireAt: next, dueAt: new Date(next.getTime() + jitterFor(id, next, jitterMs)) };
}

function compile(cronText: string, timezone: string, now: Date): CronSchedule {
  try {
    return CronSchedule.validate(cronText, timezone, now);
  } catch (err) {
    if (err instanceof ScheduleInputError) throw ValidationError.field(err.field, err.message);
    throw err;
  }
}

@Injectable()
export class SchedulesService {
  constructor(
    private readonly repo: SchedulesRepository,
    private readonly runs: RunsService,
    private readonly clock: SchedulerClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(workspaceId: string, dto: CreateScheduleDto): Promise<ScheduleDto> {
    const now = this.clock.now();
    const cron = compile(dto.cron, dto.timezone ?? 'UTC', now);
    const input = dto.input ?? {};
    jsonWithin(input, this.config.limits.runInputBytes, 'input', 'MAX_RUN_INPUT_BYTES');
    if (!isUuid(dto.definitionId)) throw unknownDefinition();
    const paused = dto.paused ?? false;
    const jitterMs = dto.jitterMs ?? 0;
    const limit = this.config.limits.schedulesPerWorkspace;
    const row = await this.repo.insert(
      workspaceId,
      dto.definitionId,
      {
        name: dto.name ?? null,
        cron: dto.cron.trim().split(/\s+/).join(' '),
        timezone: canonicalZone(dto.timezone ?? 'UTC'),
        input,
        overlapPolicy: dto.overlapPolicy ?? 'skip',
        catchupWindowMs: dto.catchupWindowMs ?? DEFAULT_CATCHUP_WINDOW_MS,
        jitterMs,
        paused,
      },
      (id) => firstFire(cron, id, jitterMs, paused, now),
      limit,
    );
    if (row === 'no-definition') throw unknownDefinition();
    if (row === 'limit') {
      throw new LimitExceededError(
        409,
        'body',
        { name: 'MAX_SCHEDULES_PER_WORKSPACE', value: limit },
        `the workspace already holds ${limit} schedules, the most allowed (MAX_SCHEDULES_PER_WORKSPACE)`,
      );
    }
    return this.toDto(row);
  }

  async list(workspaceId: string, q: ListSchedulesQueryDto): Promise<Paginated<ScheduleDto>> {
    // A filter, not a path id: a malformed one matches nothing.
    if (q.definitionId !== undefined && !isUuid(q.definitionId)) {
      return new Paginated([], q.page, q.pageSize, 0);
    }
    const { rows, total } = await this.repo.list(
      workspaceId,
      q.definitionId,
      q.pageSize,
      offsetOf(q),
    );
    return new Paginated(
      rows.map((r) => this.toDto(r)),
      q.page,
      q.pageSize,
      total,
    );
  }

  async get(workspaceId: string, id: string): Promise<ScheduleDto> {
    const row = await this.repo.get(workspaceId, id);
    if (!row) throw new NotFoundError('schedule');
    return this.toDto(row);
  }

  async update(workspaceId: string, id: string, dto: UpdateScheduleDto): Promise<ScheduleDto> {
    if (dto.input !== undefined) {
      jsonWithin(dto.input, this.config.limits.runInputBytes, 'input', 'MAX_RUN_INPUT_BYTES');
    }
    const now = this.clock.now();
    const row = await this.repo.update(workspaceId, id, (current) => {
      const cronText = dto.cron ?? current.cron;
      const timezone = dto.timezone ?? current.timezone;
      const cron = compile(cronText, timezone, now);
      const paused = dto.paused ?? current.paused;
      const jitterMs = dto.jitterMs ?? current.jitter_ms;
      const fields: ScheduleFields = {
        name: dto.name === undefined ? current.name : dto.name,
        cron: cronText.trim().split(/\s+/).join(' '),
        timezone: canonicalZone(timezone),
        input: dto.input ?? current.input,
        overlapPolicy: dto.overlapPolicy ?? current.overlap_policy,
        catchupWindowMs: dto.catchupWindowMs ?? Number(current.catchup_window_ms),
        jitterMs,
        paused,
        nextFireAt: current.next_fire_at,
        dueAt: current.due_at,
      };
      // The fire times move when what decides them changes, or on a resume (fires missed while
      // paused are not caught up); otherwise the coming fire stays as it was.
      const retimed =
        dto.cron !== undefined ||
        dto.timezone !== undefined ||
        dto.jitterMs !== undefined ||
        paused !== current.paused;
      if (retimed) Object.assign(fields, firstFire(cron, id, jitterMs, paused, now));
      // A pause forgets buffer_one's remembered fire, as it forgets every fire until the resume; so
      // does a change to another policy.
      const keepBuffered = !paused && fields.overlapPolicy === 'buffer_one';
      const bufferedFireAt = keepBuffered ? current.buffered_fire_at : null;
      return { ...fields, bufferedFireAt };
    });
    if (!row) throw new NotFoundError('schedule');
    return this.toDto(row);
  }

  async delete(workspaceId: string, id: string): Promise<DeletedScheduleDto> {
    if (!(await this.repo.delete(workspaceId, id))) throw new NotFoundError('schedule');
    return { id, deleted: true };
  }

  /**
   * Starts a run of the schedule now, as POST /v1/workflow-runs would with the schedule's definition
   * and input: whatever the pause, the overlap policy or the next fire.
   */
  async trigger(workspaceId: string, id: string): Promise<RunDto> {
    const row = await this.repo.get(workspaceId, id);
    if (!row) throw new NotFoundError('schedule');
    const { run } = await this.runs.create(
      workspaceId,
      { definitionId: row.definition_id, input: row.input },
      undefined,
      row.id,
    );
    return run;
  }

  private toDto(row: ScheduleRow): ScheduleDto {
    let nextFireTimes: string[] = [];
    if (!row.paused && row.next_fire_at) {
      const later = CronSchedule.compile(row.cron, row.timezone).nextAfter(
        row.next_fire_at,
        NEXT_FIRE_TIMES - 1,
      );
      nextFireTimes = [row.next_fire_at, ...later].map((d) => d.toISOString());
    }
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      definitionId: row.definition_id,
      name: row.name,
      cron: row.cron,
      timezone: row.timezone,
      input: row.input,
      overlapPolicy: row.overlap_policy,
      catchupWindowMs: Number(row.catchup_window_ms),
      jitterMs: row.jitter_ms,
      paused: row.paused,
      nextFireTimes,
      lastFiredAt: row.last_fired_at?.toISOString() ?? null,
      bufferedFireAt: row.buffered_fire_at?.toISOString() ?? null,
      skippedFires: Number(row.skipped_fires),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }
}

function unknownDefinition(): ValidationError {
  return ValidationError.field(
    'definitionId',
    'no workflow definition with this id in the workspace',
  );
}

/** The zone as the runtime spells it; called once `compile` has accepted it. */
function canonicalZone(timezone: string): string {
  return canonicalTimeZone(timezone) ?? timezone;
}
