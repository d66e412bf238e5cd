import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { ApprovalStepExecutor } from './approval.step';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsRepository } from './approvals.repository';
import { ApprovalsService } from './approvals.service';

/** Approval requests and the `approval` step type (found by the executor through its decorator). */
@Module({
  imports: [QueueModule],
  controllers: [ApprovalsController],
  providers: [ApprovalsService, ApprovalsRepository, ApprovalStepExecutor],
})
export class ApprovalsModule {}
