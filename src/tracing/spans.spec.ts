import { ROOT_CONTEXT, TraceFlags } from '@opentelemetry/api';
import {
  parseTraceparent,
  traceBatch,
  traceparentForRun,
  traceStep,
  tracingEnabled,
} from './spans';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('parseTraceparent', () => {
  it('reads a version 00 traceparent as a remote span context', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    // Flags other than "sampled" are not carried over.
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-02`)?.traceFlags).toBe(TraceFlags.NONE);
  });

  it.each([
    ['not a header', 'hello'],
    ['an unknown version', `01-${TRACE}-${SPAN}-01`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['two headers joined', `00-${TRACE}-${SPAN}-01, 00-${TRACE}-${SPAN}-01`],
    ['a non-string', 42],
  ])('refuses %s', (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('with tracing off', () => {
  it('is off unless the SDK was started', () => {
    expect(tracingEnabled()).toBe(false);
  });

  it("stores the caller's well-formed traceparent with a run, and nothing otherwise", () => {
    expect(traceparentForRun(`00-${TRACE}-${SPAN}-01`)).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(traceparentForRun(`00-${TRACE}-${SPAN}-03`)).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(traceparentForRun(` 00-${TRACE}-${SPAN}-00 `)).toBe(`00-${TRACE}-${SPAN}-00`);
    expect(traceparentForRun('garbage')).toBeNull();
    expect(traceparentForRun(undefined)).toBeNull();
  });

  it('runs a step without making a span', async () => {
    const step = {
      id: 's',
      runId: 'r',
      workspaceId: 'w',
      stepIndex: 0,
      stepName: 'n',
      stepType: 'task',
      attempt: 1,
      run: { traceparent: `00-${TRACE}-${SPAN}-01` },
    };
    await expect(traceStep(step, () => Promise.resolve('done'))).resolves.toBe('done');
    await expect(traceStep(step, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });

  it('runs a shared statement without making a span', async () => {
    const contexts = [ROOT_CONTEXT, ROOT_CONTEXT];
    await expect(traceBatch('batch', contexts, () => Promise.resolve('rows'))).resolves.toBe(
      'rows',
    );
    await expect(
      traceBatch('batch', contexts, () => Promise.reject(new Error('lost'))),
    ).rejects.toThrow('lost');
  });
});
