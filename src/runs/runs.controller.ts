import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  CachedKey,
  type CachedKeyCheck,
  ChecksKeyInQuery,
  CurrentWorkspace,
  RequiresScope,
} from '../common/auth';
import { ValidationError } from '../common/errors';
import { JsonData, Paginated } from '../common/envelope';
import { IdParam } from '../common/id.pipe';
import { PageQueryDto } from '../common/pagination';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import {
  CreateRunDto,
  ListRunsQueryDto,
  ResumeRunDto,
  RunDto,
  RunEventDto,
  RunTransitionDto,
  StepRunDto,
} from './dto/run.dto';
import { EVENT_ID, EVENT_ID_MESSAGE, EventStreamQueryDto } from './dto/event-stream.dto';
import { RunDetailDto, SendSignalDto, SignalDto } from './dto/signal.dto';
import { RunEventStreams } from './run-event-streams';
import { RunsService } from './runs.service';
import { SSE_RETRY_MS } from './sse';

/** The wire format, as the OpenAPI document describes the stream's 200 answer. */
const STREAM_FORMAT =
  'Server-Sent Events. First `retry: ' +
  SSE_RETRY_MS +
  '` (EventSource waits that long before it ' +
  "reconnects), then one message per run event, oldest first: `id: <seq>` (the event's position in " +
  'the order, to send back as Last-Event-ID), `event: <eventType>` and `data: <the event as ' +
  'GET /v1/workflow-runs/:id/events lists it, JSON on one line>`, each followed by a blank line. ' +
  "Comments `: keep-alive` every SSE_HEARTBEAT_MS. The server ends the stream after the run's " +
  'terminal event (WORKFLOW_COMPLETED, WORKFLOW_FAILED or WORKFLOW_CANCELLED) when nothing follows ' +
  'it, and drops a client that leaves more than SSE_MAX_BUFFERED_BYTES unread.';

/** The resume point: the Last-Event-ID header, else the lastEventId query parameter, else 0. */
function resumeAfter(header: string | undefined, query: EventStreamQueryDto): number {
  if (header === undefined || header === '') return Number(query.lastEventId ?? 0);
  if (!EVENT_ID.test(header)) throw ValidationError.field('Last-Event-ID', EVENT_ID_MESSAGE);
  return Number(header);
}

@ApiTags('workflow-runs')
@ApiSecurity('api-key')
@Controller('v1/workflow-runs')
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly streams: RunEventStreams,
  ) {}

  @Post()
  @RequiresScope('runs:write')
  @ApiOperation({
    summary: 'Start a run (201), or return the run holding the idempotencyKey (200)',
  })
  @ApiHeader({
    name: 'traceparent',
    required: false,
    description:
      'W3C Trace Context of the caller. Stored with the run; the spans of its steps link to it ' +
      '(README "Tracing"). A malformed value is ignored.',
  })
  @ApiEnvelope(RunDto, 201)
  @ApiEnvelope(RunDto, 200)
  @ApiErrors(...BODY_ERRORS, 401, 404)
  @ChecksKeyInQuery()
  async create(
    @CurrentWorkspace() workspaceId: string,
    @Body() dto: CreateRunDto,
    @Res({ passthrough: true }) res: Response,
    @CachedKey() key: CachedKeyCheck | undefined,
    @Headers('traceparent') traceparent?: string,
  ): Promise<RunDto> {
    const { run, created } = await this.runs.create(workspaceId, dto, traceparent, undefined, key);
    res.status(created ? 201 : 200);
    return run;
  }

  @Get()
  @RequiresScope('runs:read')
  @ApiOperation({ summary: 'List runs, newest first, with pagination meta' })
  @ApiEnvelope(RunDto, 200, 'page')
  @ApiErrors(400, 401)
  @ChecksKeyInQuery()
  list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListRunsQueryDto,
    @CachedKey() key: CachedKeyCheck | undefined,
  ): Promise<JsonData> {
    return this.runs.list(workspaceId, query, key);
  }

  @Get(':id')
  @RequiresScope('runs:read')
  @ApiOperation({ summary: 'Get one run, including currentStepIndex and its buffered signals' })
  @ApiEnvelope(RunDetailDto)
  @ApiErrors(401, 404)
  @ChecksKeyInQuery()
  get(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
    @CachedKey() key: CachedKeyCheck | undefined,
  ): Promise<JsonData> {
    return this.runs.get(workspaceId, id, key);
  }

  @Post(':id/cancel')
  @RequiresScope('runs:write')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a PENDING, RUNNING, WAITING or PAUSED run' })
  @ApiEnvelope(RunTransitionDto)
  @ApiErrors(401, 404, 409)
  cancel(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
  ): Promise<RunTransitionDto> {
    return this.runs.cancel(workspaceId, id);
  }

  @Post(':id/resume')
  @RequiresScope('runs:write')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deliver a signal to a WAITING run' })
  @ApiEnvelope(RunTransitionDto)
  @ApiErrors(...BODY_ERRORS, 401, 404, 409)
  resume(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
    @Body() dto: ResumeRunDto,
  ): Promise<RunTransitionDto> {
    return this.runs.resume(workspaceId, id, dto);
  }

  @Post(':id/signals')
  @RequiresScope('runs:write')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a signal to a run that has not ended: delivered now, or buffered for later',
    description:
      'Delivered (as resume would deliver it) when the run is WAITING on an external_event step ' +
      'that takes this signalType; otherwise buffered, and the next external_event step of that ' +
      'type consumes the oldest buffered one as soon as it starts. 409 for a COMPLETED, FAILED or ' +
      'CANCELLED run, and for a run already holding MAX_BUFFERED_SIGNALS_PER_RUN buffered signals. ' +
      'Signals still buffered when the run ends are dropped (SIGNALS_DROPPED). README "Signals".',
  })
  @ApiEnvelope(SignalDto, 202)
  @ApiErrors(...BODY_ERRORS, 401, 404, 409)
  signal(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
    @Body() dto: SendSignalDto,
  ): Promise<SignalDto> {
    return this.runs.signal(workspaceId, id, dto);
  }

  @Post(':id/retry')
  @RequiresScope('runs:write')
  @HttpCode(200)
  @ApiOperation({ summary: 'Retry a FAILED run from its failed step' })
  @ApiEnvelope(RunTransitionDto)
  @ApiErrors(401, 404, 409)
  retry(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
  ): Promise<RunTransitionDto> {
    return this.runs.retry(workspaceId, id);
  }

  @Get(':id/events')
  @RequiresScope('runs:read')
  @ApiOperation({ summary: 'Run events, oldest first, paginated' })
  @ApiEnvelope(RunEventDto, 200, 'page')
  @ApiErrors(400, 401, 404)
  events(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
    @Query() query: PageQueryDto,
  ): Promise<Paginated<RunEventDto>> {
    return this.runs.events(workspaceId, id, query);
  }

  @Get(':id/events/stream')
  @RequiresScope('runs:read')
  @ApiOperation({
    summary: 'Live run events (Server-Sent Events): the recorded ones, then new ones as recorded',
    description:
      'Same authentication, workspace scoping and 404 as the events list. Opening a stream counts as ' +
      'one request against the rate limit; open streams are capped per workspace ' +
      '(SSE_MAX_STREAMS_PER_WORKSPACE) and per server process (SSE_MAX_STREAMS): 429 beyond.',
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description:
      'Resume after this event id (the `id:` of the last message received); no gap, no repeat.',
    schema: { type: 'string', pattern: EVENT_ID.source },
  })
  @ApiResponse({
    status: 200,
    description: STREAM_FORMAT,
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 204,
    description:
      'The run is over (COMPLETED, FAILED or CANCELLED) and has no event after the given id: ' +
      'nothing to stream (EventSource stops reconnecting on a 204).',
  })
  @ApiErrors(400, 401, 404, 429, 503)
  async stream(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
    @Query() query: EventStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.streams.stream(workspaceId, id, resumeAfter(lastEventId, query), req, res);
  }

  @Get(':id/steps')
  @RequiresScope('runs:read')
  @ApiOperation({ summary: 'The run step runs in execution order' })
  @ApiEnvelope(StepRunDto, 200, 'array')
  @ApiErrors(401, 404)
  steps(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
  ): Promise<StepRunDto[]> {
    return this.runs.steps(workspaceId, id);
  }
}
