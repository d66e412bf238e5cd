import { Module } from '@nestjs/common';
import { ChildRuns } from './child-runs';
import { MapItems } from './map-items';
import { RunQueue } from './run-queue';

/**
 * The queue: every statement that creates or moves runs and step runs, with the channels, the run
 * events and the webhook outbox beside them. The API's transitions come through `RunQueue`; each
 * executor process builds its own `StepQueue` (its worker id and lease are fields of it).
 */
@Module({
  providers: [RunQueue, ChildRuns, MapItems],
  exports: [RunQueue, ChildRuns, MapItems],
})
export class QueueModule {}
