import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentKeyAuth, CurrentWorkspace, KeyAuth, RequiresScope } from '../common/auth';
import { IdParam } from '../common/id.pipe';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { ApprovalsService } from './approvals.service';
import {
  ApprovalCountDto,
  ApprovalDecisionDto,
  ApprovalRequestDto,
  DecideApprovalDto,
  ListApprovalRequestsQueryDto,
} from './dto/approval.dto';

@ApiTags('approval-requests')
@ApiSecurity('api-key')
@Controller('v1/approval-requests')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get()
  @RequiresScope('approvals:read')
  @ApiOperation({
    summary: 'List approval requests, newest first by default (no pagination meta)',
    description:
      '`pending=true`: undecided only; `pending=false`: decided only; omitted: all. `assignee`: ' +
      'only the requests for that name or group. `order=oldest` lists the oldest first. One answer holds at most APPROVAL_LIST_MAX_ITEMS (default 500) ' +
      'requests, the first in that order; when there are more, the `Link` header names the next ' +
      'part (`rel="next"`, with `before`, or with order=oldest `after`, set to the last id).',
  })
  @ApiEnvelope(ApprovalRequestDto, 200, 'array', {
    Link: {
      description:
        'Present when the answer was cut: `<...?before=<last id>>; rel="next"` ' +
        '(order=oldest: `<...?order=oldest&after=<last id>>; rel="next"`)',
      schema: { type: 'string' },
    },
  })
  @ApiErrors(400, 401)
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListApprovalRequestsQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ApprovalRequestDto[]> {
    const { items, next } = await this.approvals.list(workspaceId, query);
    if (next) {
      const params = new URLSearchParams();
      if (query.pending !== undefined) params.set('pending', query.pending);
      if (query.assignee !== undefined) params.set('assignee', query.assignee);
      if (query.order === 'oldest') {
        params.set('order', 'oldest');
        params.set('after', next);
      } else {
        params.set('before', next);
      }
      res.setHeader('Link', `</v1/approval-requests?${params.toString()}>; rel="next"`);
    }
    return items;
  }

  // Before ':id', which would otherwise take `count` for an id.
  @Get('count')
  @RequiresScope('approvals:read')
  @ApiOperation({
    summary: 'How many approval requests await a decision (the console badge)',
    description: 'Counts the undecided requests of the workspace: as many as `pending=true` lists.',
  })
  @ApiEnvelope(ApprovalCountDto)
  @ApiErrors(401)
  count(@CurrentWorkspace() workspaceId: string): Promise<ApprovalCountDto> {
    return this.approvals.count(workspaceId);
  }

  @Get(':id')
  @RequiresScope('approvals:read')
  @ApiOperation({ summary: 'One approval request, decided or not' })
  @ApiEnvelope(ApprovalRequestDto)
  @ApiErrors(401, 404)
  get(
    @CurrentWorkspace() workspaceId: string,
    @IdParam('approval request') id: string,
  ): Promise<ApprovalRequestDto> {
    return this.approvals.get(workspaceId, id);
  }

  @Post(':id/decide')
  @RequiresScope('approvals:decide')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Decide an approval request: approved, rejected or edited',
    description:
      'Wakes the paused run. approved: continues with the content as it is. edited: editedContent ' +
      'replaces the state value at contentKey. rejected: the approval step fails; while its retry ' +
      'policy has attempts left the run goes back to regenerateFrom (default: the step before) with ' +
      '`rejection: {decision, comment}` in the state, otherwise the run fails. With ' +
      '`requiredApprovals` N > 1, an approval counts toward the quorum of N distinct deciders and is ' +
      'answered with decision null until the Nth; one rejection decides at once; edited is 409. ' +
      '409 when the request was already decided, the run is no longer PAUSED (cancelled, for ' +
      'instance), the same decider already approved it, or its timeout is being applied. Through a ' +
      'console session, `decidedBy` is the reviewer name of the session and the body field is ignored.',
  })
  @ApiEnvelope(ApprovalDecisionDto)
  @ApiErrors(...BODY_ERRORS, 401, 404, 409)
  decide(
    @CurrentKeyAuth() caller: KeyAuth,
    @IdParam('approval request') id: string,
    @Body() dto: DecideApprovalDto,
  ): Promise<ApprovalDecisionDto> {
    return this.approvals.decide(caller, id, dto);
  }
}
