import { jsonProblem, sanitizeJson, sanitizeText } from './json-safety';
import { MAX_TIMER_MS, timerDelay } from './timers';

describe('sanitizeText', () => {
  it.each<[string, string, string]>([
    ['NUL', 'a\u0000b', 'a\ufffdb'],
    ['several NULs', '\u0000\u0000x\u0000', '\ufffd\ufffdx\ufffd'],
    ['a lone high surrogate', 'x\ud800y', 'x\ufffdy'],
    ['a lone low surrogate', 'x\udc00', 'x\ufffd'],
    ['a reversed pair', '\udc00\ud800', '\ufffd\ufffd'],
    ['NUL and a lone surrogate', '\u0000\udbff', '\ufffd\ufffd'],
  ])('replaces %s with U+FFFD', (_name, text, expected) => {
    const out = sanitizeText(text);
    expect(out).toBe(expected);
    expect(jsonProblem(out, 10)).toBeUndefined();
  });

  it.each(['plain', 'emoji 😀 pair kept', 'accents é ü', ''])('leaves %j as it is', (text) => {
    expect(sanitizeText(text)).toBe(text);
  });

  it('cuts a long text with a note of what was left out', () => {
    expect(sanitizeText('x'.repeat(10), 4)).toBe('xxxx… (6 more characters)');
    expect(sanitizeText('x'.repeat(4), 4)).toBe('xxxx');
  });

  it('never cuts inside a surrogate pair', () => {
    const out = sanitizeText('abc😀def', 4);
    expect(out).toBe('abc… (5 more characters)');
    expect(jsonProblem(out, 10)).toBeUndefined();
  });
});

describe('sanitizeJson', () => {
  it('sanitises strings and keys at any depth, in objects and arrays, without touching the input', () => {
    const input = {
      'k\u0000': 'v\ud800',
      list: [1, 'a\u0000', { deep: ['\udc00'] }],
      n: null,
      b: true,
    };
    const copy = JSON.parse(JSON.stringify(input)) as unknown;
    const out = sanitizeJson(input);
    expect(out).toEqual({
      'k\ufffd': 'v\ufffd',
      list: [1, 'a\ufffd', { deep: ['\ufffd'] }],
      n: null,
      b: true,
    });
    expect(input).toEqual(copy);
    expect(jsonProblem(out, 100)).toBeUndefined();
  });

  it('keeps __proto__, constructor and prototype keys as data, never as the prototype', () => {
    const input = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": "c", "n": {"__proto__": ["x\\u0000"]}}',
    ) as Record<string, unknown>;
    const out = sanitizeJson(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor', 'n']);
    expect(JSON.stringify(out)).toBe(
      '{"__proto__":{"polluted":true},"constructor":"c","n":{"__proto__":["x\ufffd"]}}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('cuts long strings', () => {
    expect(sanitizeJson({ error: 'e'.repeat(20), short: 'ok' }, 5)).toEqual({
      error: 'eeeee… (15 more characters)',
      short: 'ok',
    });
  });

  it('ends a cycle and anything nested too deep with null', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    const out = sanitizeJson(cyclic, Infinity, 3);
    expect(JSON.stringify(out)).toBe(
      '{"name":"x","self":{"name":"x","self":{"name":"x","self":null}}}',
    );
  });

  it('keeps values JSON.stringify knows how to write', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    expect(JSON.stringify(sanitizeJson({ at, n: 1.5 }))).toBe(JSON.stringify({ at, n: 1.5 }));
  });
});

describe('timerDelay', () => {
  it.each<[number, number]>([
    [0, 0],
    [-5, 0],
    [Number.NaN, 0],
    [0.2, 1],
    [1000, 1000],
    [MAX_TIMER_MS, MAX_TIMER_MS],
    [MAX_TIMER_MS + 1, MAX_TIMER_MS],
    [31_536_000_000, MAX_TIMER_MS],
    [Number.POSITIVE_INFINITY, MAX_TIMER_MS],
  ])('%d ms becomes %d ms', (ms, expected) => {
    expect(timerDelay(ms)).toBe(expected);
  });
});
