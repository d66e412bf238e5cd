import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace, RequiresScope } from '../common/auth';
import { Paginated } from '../common/envelope';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { RunDto } from '../runs/dto/run.dto';
import {
  CreateScheduleDto,
  DeletedScheduleDto,
  ListSchedulesQueryDto,
  ScheduleDto,
  UpdateScheduleDto,
} from './dto/schedule.dto';
import { SchedulesService } from './schedules.service';

@ApiTags('schedules')
@ApiSecurity('api-key')
@Controller('v1/schedules')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Post()
  @RequiresScope('schedules:write')
  @ApiOperation({
    summary: 'Create a schedule that starts runs of a definition on a cron expression',
    description:
      'A workspace holds at most MAX_SCHEDULES_PER_WORKSPACE (default 1000) schedules (409). An ' +
      'expression that does not parse, never fires or fires more than once a second, an unknown ' +
      'time zone and a definition not in the workspace are 400 naming the field.',
  })
  @ApiEnvelope(ScheduleDto, 201)
  @ApiErrors(...BODY_ERRORS, 401, 409)
  create(
    @CurrentWorkspace() workspaceId: string,
    @Body() dto: CreateScheduleDto,
  ): Promise<ScheduleDto> {
    return this.schedules.create(workspaceId, dto);
  }

  @Get()
  @RequiresScope('schedules:read')
  @ApiOperation({ summary: 'List schedules, newest first, with pagination meta' })
  @ApiEnvelope(ScheduleDto, 200, 'page')
  @ApiErrors(400, 401)
  list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListSchedulesQueryDto,
  ): Promise<Paginated<ScheduleDto>> {
    return this.schedules.list(workspaceId, query);
  }

  @Get(':id')
  @RequiresScope('schedules:read')
  @ApiOperation({ summary: 'Get one schedule with its next fire times' })
  @ApiEnvelope(ScheduleDto)
  @ApiErrors(401, 404)
  get(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('schedule') id: string,
  ): Promise<ScheduleDto> {
    return this.schedules.get(workspaceId, id);
  }

  @Patch(':id')
  @RequiresScope('schedules:write')
  @ApiOperation({
    summary: 'Change a schedule: pause or resume, cron, timezone, input, policies',
    description:
      'A change of cron, timezone or jitterMs, and a resume, compute the next fire from now; ' +
      'fires missed while paused are not caught up.',
  })
  @ApiEnvelope(ScheduleDto)
  @ApiErrors(...BODY_ERRORS, 401, 404)
  update(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('schedule') id: string,
    @Body() dto: UpdateScheduleDto,
  ): Promise<ScheduleDto> {
    return this.schedules.update(workspaceId, id, dto);
  }

  @Delete(':id')
  @RequiresScope('schedules:write')
  @ApiOperation({
    summary: 'Delete a schedule; it starts no run afterwards. Its runs keep their scheduleId.',
  })
  @ApiEnvelope(DeletedScheduleDto)
  @ApiErrors(401, 404)
  delete(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('schedule') id: string,
  ): Promise<DeletedScheduleDto> {
    return this.schedules.delete(workspaceId, id);
  }

  @Post(':id/trigger')
  @RequiresScope('schedules:write')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start a run of the schedule now',
    description:
      "Starts a run with the schedule's definition and input at once, as POST /v1/workflow-runs " +
      'would, whether the schedule is paused or a run of it is going; the run carries scheduleId. ' +
      'The schedule and its next fires are unchanged.',
  })
  @ApiEnvelope(RunDto, 201)
  @ApiErrors(401, 404)
  trigger(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('schedule') id: string,
  ): Promise<RunDto> {
    return this.schedules.trigger(workspaceId, id);
  }
}
