import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace, RequiresScope } from '../common/auth';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { DefinitionsService } from './definitions.service';
import { CreateDefinitionDto, DefinitionDto } from './dto/definition.dto';

@ApiTags('workflow-definitions')
@ApiSecurity('api-key')
@Controller('v1/workflow-definitions')
export class DefinitionsController {
  constructor(private readonly definitions: DefinitionsService) {}

  @Post()
  @RequiresScope('definitions:write')
  @HttpCode(201)
  @ApiOperation({ summary: 'Register an immutable, versioned workflow definition' })
  @ApiEnvelope(DefinitionDto, 201)
  @ApiErrors(...BODY_ERRORS, 401, 409)
  create(
    @CurrentWorkspace() workspaceId: string,
    @Body() dto: CreateDefinitionDto,
  ): Promise<DefinitionDto> {
    return this.definitions.create(workspaceId, dto);
  }

  @Get()
  @RequiresScope('definitions:read')
  @ApiOperation({ summary: 'List definitions, newest first (no pagination meta)' })
  @ApiEnvelope(DefinitionDto, 200, 'array')
  @ApiErrors(401)
  list(@CurrentWorkspace() workspaceId: string): Promise<DefinitionDto[]> {
    return this.definitions.list(workspaceId);
  }

  @Get(':id')
  @RequiresScope('definitions:read')
  @ApiOperation({ summary: 'Get one definition' })
  @ApiEnvelope(DefinitionDto)
  @ApiErrors(401, 404)
  get(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('workflow definition') id: string,
  ): Promise<DefinitionDto> {
    return this.definitions.get(workspaceId, id);
  }
}
