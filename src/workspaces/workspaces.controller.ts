import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminAuth, CurrentWorkspace, NoScope } from '../common/auth';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { CreateWorkspaceDto, WorkspaceDto } from './dto/workspace.dto';
import { WorkspacesService } from './workspaces.service';

@ApiTags('workspaces')
@Controller('v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Post()
  @HttpCode(201)
  @AdminAuth()
  @ApiOperation({ summary: 'Create a workspace (needs x-admin-token when ADMIN_TOKEN is set)' })
  @ApiHeader({ name: 'x-admin-token', required: false })
  @ApiEnvelope(WorkspaceDto, 201)
  @ApiErrors(...BODY_ERRORS, 401, 409)
  create(@Body() dto: CreateWorkspaceDto): Promise<WorkspaceDto> {
    return this.workspaces.create(dto);
  }

  @Get('current')
  @NoScope()
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'The workspace of the calling API key' })
  @ApiEnvelope(WorkspaceDto)
  @ApiErrors(401)
  current(@CurrentWorkspace() workspaceId: string): Promise<WorkspaceDto> {
    return this.workspaces.get(workspaceId);
  }
}
