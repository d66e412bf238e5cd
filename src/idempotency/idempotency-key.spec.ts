import { bodyHash, canonicalJson, isStoredStatus, parseIdempotencyKey } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it.each([
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['order 42', 'order 42'],
    ['  padded  ', 'padded'],
    ['"with \\"quotes\\" and \\\\"', 'with "quotes" and \\'],
    ['k'.repeat(255), 'k'.repeat(255)],
    [`"${'k'.repeat(255)}"`, 'k'.repeat(255)],
    ['a"b', 'a"b'],
  ])('reads %j as the key %j', (line, key) => {
    expect(parseIdempotencyKey([line])).toEqual({ key });
  });

  const RULE = 'must be 1-255 printable ASCII characters, or such a string in double quotes';
  it.each([
    ['an empty value', [''], RULE],
    ['a value of blanks', ['   '], RULE],
    ['256 characters', ['k'.repeat(256)], RULE],
    ['a quoted key of 256 characters', [`"${'k'.repeat(256)}"`], RULE],
    ['a non-ASCII character', ['clé'], RULE],
    ['a control character', ['a\tb'], RULE],
    ['an empty quoted string', ['""'], RULE],
    ['an unterminated quoted string', ['"abc'], `is not a valid quoted string: ${RULE}`],
    ['text after the quoted string', ['"abc"d'], `is not a valid quoted string: ${RULE}`],
    ['an escape other than \\" and \\\\', ['"a\\nb"'], `is not a valid quoted string: ${RULE}`],
    ['a non-ASCII character in quotes', ['"é"'], `is not a valid quoted string: ${RULE}`],
    ['two field lines', ['a', 'b'], 'must be sent once'],
    ['no field line', [], 'must be sent once'],
  ])('refuses %s', (_case, lines, problem) => {
    expect(parseIdempotencyKey(lines)).toEqual({ problem });
  });
});

describe('canonicalJson', () => {
  it('sorts members by UTF-16 code units, at every depth, and drops whitespace', () => {
    expect(canonicalJson({ b: [{ z: 1, a: null }], a: 'x', é: true, B: false })).toBe(
      '{"B":false,"a":"x","b":[{"a":null,"z":1}],"é":true}',
    );
  });

  it('writes numbers and strings as RFC 8785 does (ECMAScript JSON serialization)', () => {
    expect(canonicalJson([1e21, 1.5e-7, -0, 0.1, 100, 'a\u2028"\\'])).toBe(
      '[1e+21,1.5e-7,0,0.1,100,"a\u2028\\"\\\\"]',
    );
  });

  it('keeps __proto__ as the ordinary member it is in a parsed body', () => {
    const body = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
    expect(canonicalJson(body)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('gives the same hash to bodies that differ only in order, another to any other change', () => {
    const a = bodyHash(JSON.parse('{"x":1,"y":{"p":[1,2],"q":"s"}}'));
    const b = bodyHash(JSON.parse('{ "y": { "q": "s", "p": [1, 2] }, "x": 1.0 }'));
    const c = bodyHash(JSON.parse('{"x":1,"y":{"p":[2,1],"q":"s"}}'));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(bodyHash({}).equals(bodyHash({ a: undefined }))).toBe(true);
  });
});

describe('isStoredStatus', () => {
  it('stores 2xx and the 4xx a route gives about the state it found', () => {
    expect([200, 201, 202, 204, 404, 409, 410].every(isStoredStatus)).toBe(true);
  });

  it('stores no 5xx, no credential or rate answer, and no answer to an invalid request', () => {
    expect([400, 401, 403, 413, 415, 422, 429, 500, 502, 503, 301].some(isStoredStatus)).toBe(
      false,
    );
  });
});
