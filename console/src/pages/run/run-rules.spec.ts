import {
  canCancel,
  canResume,
  canRetry,
  canSignal,
  expectedSignalType,
  parseJsonObject,
  parseJsonValue,
  signalOutcome,
  signalTypeProblem,
  stateBefore,
} from './run-rules';

describe('run actions', () => {
  it('offers cancel, resume and retry only where the API allows them', () => {
    const statuses = [
      'PENDING',
      'RUNNING',
      'WAITING',
      'PAUSED',
      'COMPLETED',
      'FAILED',
      'CANCELLED',
    ];
    expect(statuses.filter(canCancel)).toEqual(['PENDING', 'RUNNING', 'WAITING', 'PAUSED']);
    expect(statuses.filter(canResume)).toEqual(['WAITING']);
    expect(statuses.filter(canRetry)).toEqual(['FAILED']);
    expect(statuses.filter(canSignal)).toEqual(['PENDING', 'RUNNING', 'WAITING', 'PAUSED']);
  });

  it('takes any JSON value as a signal payload, empty text as {}, and says what is not JSON', () => {
    for (const [text, value] of [
      ['{"amount": 12}', { amount: 12 }],
      ['[1, "two"]', [1, 'two']],
      ['"text"', 'text'],
      ['3.5', 3.5],
      ['false', false],
      ['null', null],
      [' ', {}],
    ] as const) {
      expect(parseJsonValue(text)).toEqual({ ok: true, value });
    }
    const broken = parseJsonValue('{"amount": ');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^Not valid JSON: /);
  });

  it('says what became of a signal', () => {
    expect(signalOutcome('delivered', 'paid')).toBe(
      'The "paid" signal was delivered to the waiting step; the run goes on.',
    );
    expect(signalOutcome('buffered', 'paid')).toBe(
      'The "paid" signal was buffered: the next external_event step of its type takes it.',
    );
  });

  it('takes a JSON object as the resume payload, empty text as {}', () => {
    expect(parseJsonObject('{"amount": 12, "note": "ok"}')).toEqual({
      ok: true,
      value: { amount: 12, note: 'ok' },
    });
    expect(parseJsonObject('  ')).toEqual({ ok: true, value: {} });
  });

  it('refuses text that is not JSON, or JSON that is not an object, saying why', () => {
    const broken = parseJsonObject('{"amount": }');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^Not valid JSON: /);
    for (const [text, kind] of [
      ['[1]', 'an array'],
      ['null', 'null'],
      ['"x"', 'a string'],
      ['3', 'a number'],
    ]) {
      const result = parseJsonObject(text);
      expect(!result.ok && result.message).toBe(
        `The payload must be a JSON object ({…}), not ${kind}.`,
      );
    }
  });

  it('wants a signal type', () => {
    expect(signalTypeProblem(' ')).toBeDefined();
    expect(signalTypeProblem('payment.received')).toBeUndefined();
    // At most 100 characters, as the API counts them (a character outside the BMP is one).
    expect(signalTypeProblem('😀'.repeat(100))).toBeUndefined();
    expect(signalTypeProblem('a'.repeat(101))).toBe(
      'A signal type has at most 100 characters (this one has 101).',
    );
  });

  it('finds the signal type of the external event the run waits at', () => {
    const steps = [
      { type: 'task', name: 'a', handler: 'noop' },
      { type: 'external_event', name: 'pay', signalType: 'payment.received' },
      { type: 'external_event', name: 'any' },
    ];
    expect(expectedSignalType(steps, 1)).toBe('payment.received');
    expect(expectedSignalType(steps, 2)).toBeUndefined();
    expect(expectedSignalType(steps, 0)).toBeUndefined();
    expect(expectedSignalType(undefined, 1)).toBeUndefined();
    expect(expectedSignalType(steps, undefined)).toBeUndefined();
  });
});

describe('state before a step run', () => {
  const definition = [
    { type: 'task', name: 'price', handler: 'transform' },
    { type: 'external_event', name: 'await-payment', outputKey: 'payment' },
    { type: 'task', name: 'receipt', handler: 'transform' },
  ];
  const runs = [
    { id: 's1', stepIndex: 0, stepName: 'price', status: 'COMPLETED', output: { total: 5 } },
    {
      id: 's2',
      stepIndex: 1,
      stepName: 'await-payment',
      status: 'COMPLETED',
      output: { amount: 5 },
    },
    { id: 's3', stepIndex: 2, stepName: 'receipt', status: 'FAILED', output: null },
    { id: 's4', stepIndex: 2, stepName: 'receipt', status: 'RUNNING', output: null },
  ];

  it('is the run input plus earlier outputs under their output keys', () => {
    expect(stateBefore({ orderId: 7 }, runs, definition, 's1')).toEqual({ orderId: 7 });
    expect(stateBefore({ orderId: 7 }, runs, definition, 's2')).toEqual({
      orderId: 7,
      price: { total: 5 },
    });
    expect(stateBefore({ orderId: 7 }, runs, definition, 's4')).toEqual({
      orderId: 7,
      price: { total: 5 },
      payment: { amount: 5 },
    });
  });

  it('lets a later output replace an earlier one and falls back to step names without a definition', () => {
    const loop = [
      { id: 'a', stepIndex: 0, stepName: 'count', status: 'COMPLETED', output: { n: 1 } },
      { id: 'b', stepIndex: 0, stepName: 'count', status: 'COMPLETED', output: { n: 2 } },
      { id: 'c', stepIndex: 1, stepName: 'end', status: 'RUNNING', output: null },
    ];
    expect(stateBefore({ count: 'input' }, loop, undefined, 'c')).toEqual({ count: { n: 2 } });
    expect(stateBefore({}, loop, undefined, 'nope')).toBeUndefined();
  });
});
