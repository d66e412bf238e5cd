import { Module } from '@nestjs/common';
import { DefinitionsModule } from '../definitions/definitions.module';
import { QueueModule } from '../queue/queue.module';
import { RunEventStreams } from './run-event-streams';
import { RunsController } from './runs.controller';
import { RunsRepository } from './runs.repository';
import { RunsService } from './runs.service';

@Module({
  imports: [DefinitionsModule, QueueModule],
  controllers: [RunsController],
  providers: [RunsService, RunsRepository, RunEventStreams],
  exports: [RunsRepository, RunsService],
})
export class RunsModule {}
