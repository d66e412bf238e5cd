import { RUN_EVENT_TYPES as SERVICE_EVENT_TYPES } from '../../../../src/queue/run-events';
import {
  eventStepName,
  filterEvents,
  isFailureEvent,
  mergeEvents,
  presentTypes,
  RUN_EVENT_TYPES,
  statusAfterEvent,
} from './events';

// The stream names each message by its type (`event:`), and EventSource delivers only the types it
// listens to: a type the service records but the console does not list would be dropped silently.
it('listens to every event type the service records', () => {
  expect([...RUN_EVENT_TYPES].sort()).toEqual([...SERVICE_EVENT_TYPES].sort());
});

const ev = (id: string, eventType: string, payload: Record<string, unknown> = {}) => ({
  id,
  eventType,
  stepRunId: null,
  payload,
  createdAt: '2026-11-24T10:00:00.000Z',
});

describe('run events', () => {
  it('appends only the events not seen yet, in their order, and keeps the same array when none are new', () => {
    const a = ev('a', 'WORKFLOW_STARTED');
    const b = ev('b', 'STEP_STARTED');
    const c = ev('c', 'STEP_COMPLETED');
    const known = [a, b];
    expect(mergeEvents(known, [a, b])).toBe(known);
    expect(mergeEvents(known, [a, b, c, c]).map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(mergeEvents([], [c, a, c]).map((e) => e.id)).toEqual(['c', 'a']);
  });

  it('filters by type and by failures only, together', () => {
    const events = [
      ev('1', 'STEP_STARTED'),
      ev('2', 'STEP_FAILED'),
      ev('3', 'STEP_RETRYING'),
      ev('4', 'WORKFLOW_FAILED'),
      ev('5', 'LLM_CALL_FAILED'),
      ev('6', 'GUARDRAIL_TRIGGERED'),
      ev('7', 'WORKFLOW_COMPLETED'),
    ];
    expect(filterEvents(events, {}).length).toBe(7);
    expect(filterEvents(events, { type: 'STEP_FAILED' }).map((e) => e.id)).toEqual(['2']);
    expect(filterEvents(events, { failedOnly: true }).map((e) => e.id)).toEqual([
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(filterEvents(events, { type: 'STEP_STARTED', failedOnly: true })).toEqual([]);
    expect(isFailureEvent(ev('x', 'APPROVAL_DECIDED'))).toBe(false);
  });

  it('reads the status an event proves', () => {
    expect(statusAfterEvent(ev('1', 'WORKFLOW_COMPLETED'))).toBe('COMPLETED');
    expect(statusAfterEvent(ev('1', 'WORKFLOW_FAILED'))).toBe('FAILED');
    expect(statusAfterEvent(ev('1', 'WORKFLOW_CANCELLED'))).toBe('CANCELLED');
    expect(statusAfterEvent(ev('1', 'SIGNAL_RECEIVED'))).toBe('RUNNING');
    expect(statusAfterEvent(ev('1', 'APPROVAL_REQUESTED'))).toBe('PAUSED');
    expect(statusAfterEvent(ev('1', 'APPROVAL_ESCALATED'))).toBe('PAUSED');
    expect(statusAfterEvent(ev('1', 'APPROVAL_VOTE_RECORDED'))).toBeUndefined();
    expect(statusAfterEvent(ev('1', 'APPROVAL_EXPIRED'))).toBeUndefined();
    expect(statusAfterEvent(ev('1', 'STEP_RETRYING', { manual: true }))).toBe('RUNNING');
    expect(statusAfterEvent(ev('1', 'STEP_RETRYING', { attempt: 2 }))).toBeUndefined();
    expect(statusAfterEvent(ev('1', 'STEP_COMPLETED'))).toBeUndefined();
  });

  it('names the step of step events only', () => {
    expect(eventStepName(ev('1', 'STEP_STARTED', { stepName: 'price' }))).toBe('price');
    expect(eventStepName(ev('1', 'STEP_STARTED', { stepName: 3 }))).toBeUndefined();
    expect(eventStepName(ev('1', 'WORKFLOW_STARTED'))).toBeUndefined();
  });

  it('lists the types present in the API order, unknown ones last', () => {
    expect(
      presentTypes([
        ev('1', 'STEP_COMPLETED'),
        ev('2', 'WORKFLOW_STARTED'),
        ev('3', 'FUTURE_THING'),
        ev('4', 'STEP_COMPLETED'),
      ]),
    ).toEqual(['WORKFLOW_STARTED', 'STEP_COMPLETED', 'FUTURE_THING']);
  });
});
