import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { RunsModule } from '../runs/runs.module';
import { SchedulerClock } from './scheduler-clock';
import { SchedulerService } from './scheduler.service';
import { SchedulesController } from './schedules.controller';
import { SchedulesRepository } from './schedules.repository';
import { SchedulesService } from './schedules.service';

@Module({
  imports: [QueueModule, RunsModule],
  controllers: [SchedulesController],
  providers: [SchedulesService, SchedulesRepository, SchedulerService, SchedulerClock],
  exports: [SchedulerClock, SchedulerService],
})
export class SchedulesModule {}
