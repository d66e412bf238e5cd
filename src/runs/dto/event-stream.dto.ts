import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';

/** An event id of the stream: a run event's sequence number, in decimal digits. */
export const EVENT_ID = /^\d{1,15}$/;
export const EVENT_ID_MESSAGE = 'must be an event id of this stream (decimal digits)';

export class EventStreamQueryDto {
  @ApiPropertyOptional({
    description:
      'Resume after this event id, for clients that cannot set the Last-Event-ID header; the ' +
      'header wins when both are given (EventSource sends it on every reconnection).',
    example: '1042',
    pattern: EVENT_ID.source,
  })
  @IsOptional()
  @Matches(EVENT_ID, { message: EVENT_ID_MESSAGE })
  lastEventId?: string;
}
