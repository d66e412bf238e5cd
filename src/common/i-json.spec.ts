import { countMemberNames, iJsonProblem } from './i-json';

const problemOf = (text: string) =>
  iJsonProblem(Buffer.from(text, 'utf8'), JSON.parse(text) as object);

describe('countMemberNames', () => {
  it.each([
    ['{}', 0],
    ['{"a": 1}', 1],
    ['{"a": {"b": [1, {"c": "d"}]}, "e": ":"}', 4],
    ['{"a\\"b": "x\\\\", "c" : "\\"d\\":"}', 2],
    ['{"é": "ü:", "日本": {"🙂" :1}}', 3],
    ['["a", "b", {"c": ["d:"]}]', 1],
    ['{"a":"\\\\\\"" ,"b":1}', 2],
  ])('counts the member names of %s', (text, n) => {
    expect(countMemberNames(Buffer.from(text, 'utf8'))).toBe(n);
  });
});

describe('iJsonProblem', () => {
  it.each([
    ['{"a": 1, "a": 2}', 'a'],
    ['{"input": {"x": 1, "y": 2, "x": 3}}', 'input.x'],
    ['{"steps": [{"name": "a"}, {"name": "b", "type": "task", "name": "c"}]}', 'steps[1].name'],
    ['{"a": {"b": {"c": [[{"d": 1, "d": 1}]]}}}', 'a.b.c[0][0].d'],
    ['{"a": 1, "\\u0061": 2}', 'a'],
    ['{"__proto__": 1, "__proto__": 2}', '__proto__'],
  ])('names the duplicated member of %s', (text, field) => {
    expect(problemOf(text)).toEqual({ field, message: expect.stringMatching(/duplicated member/) });
  });

  it.each([
    ['{"a": "\\ufdd0"}', 'a'],
    ['{"a": ["ok", "x\\ufdef"]}', 'a[1]'],
    ['{"a": {"b": "\\ufffe"}}', 'a.b'],
    ['{"a": "\\uffff"}', 'a'],
    ['{"a": "\\ud83f\\udffe"}', 'a'],
    ['{"a": "\\udbff\\udfff"}', 'a'],
    ['{"a": {"k\\ufdd5": 1}}', 'a.k\ufdd5'],
  ])('names the noncharacter of %s', (text, field) => {
    expect(problemOf(text)).toEqual({ field, message: expect.stringMatching(/noncharacter/) });
  });

  it('finds a noncharacter sent as raw UTF-8 too', () => {
    expect(problemOf(`{"a": "x${String.fromCodePoint(0x10fffe)}"}`)?.field).toBe('a');
    expect(problemOf(`{"a": "x${String.fromCodePoint(0xfdd0)}"}`)?.field).toBe('a');
  });

  it.each([
    '{}',
    '{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}',
    '{"a": "\\ufdcf \\ufdf0 \\ufffd \\ud83f\\udffd \\ud83e\\udfff 🙂 日本"}',
    '{"__proto__": {"x": 1}, "constructor": 2, "prototype": 3}',
    '{"a": "\\"b\\": 1, \\"b\\": 2"}',
  ])('accepts the I-JSON body %s', (text) => {
    expect(problemOf(text)).toBeUndefined();
  });
});
