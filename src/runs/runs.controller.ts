import { Body, Controller, Get, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth';
import { Paginated } from '../common/envelope';
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
import { RunsService } from './runs.service';

@ApiTags('workflow-runs')
@ApiSecurity('api-key')
@Controller('v1/workflow-runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post()
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
  async create(
    @CurrentWorkspace() workspaceId: string,
    @Body() dto: CreateRunDto,
    @Res({ passthrough: true }) res: Response,
    @Headers('traceparent') traceparent?: string,
  ): Promise<RunDto> {
    const { run, created } = await this.runs.create(workspaceId, dto, traceparent);
    res.status(created ? 201 : 200);
    return run;
  }

  @Get()
  @ApiOperation({ summary: 'List runs, newest first, with pagination meta' })
  @ApiEnvelope(RunDto, 200, 'page')
  @ApiErrors(400, 401)
  list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListRunsQueryDto,
  ): Promise<Paginated<RunDto>> {
    return this.runs.list(workspaceId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one run, including currentStepIndex' })
  @ApiEnvelope(RunDto)
  @ApiErrors(401, 404)
  get(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow run') id: string,
  ): Promise<RunDto> {
    return this.runs.get(workspaceId, id);
  }

  @Post(':id/cancel')
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

  @Post(':id/retry')
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

  @Get(':id/steps')
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
