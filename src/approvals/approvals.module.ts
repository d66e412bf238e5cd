import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsRepository } from './approvals.repository';
import { ApprovalsService } from './approvals.service';

/** Approval requests; the `approval` step type, registered by its descriptor, writes them. */
@Module({
  imports: [QueueModule],
  controllers: [ApprovalsController],
  providers: [ApprovalsService, ApprovalsRepository],
  exports: [ApprovalsRepository],
})
export class ApprovalsModule {}
