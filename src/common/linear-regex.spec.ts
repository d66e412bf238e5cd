import jsonata from 'jsonata';
import {
  estimateProgramSize,
  LinearRegex,
  LinearRegexError,
  LinearRegExp,
  linearRegexProblem,
  MAX_REGEX_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  MAX_REGEX_WORK,
  PatternMatcher,
  RE2_SYNTAX,
  RegexBudget,
  regexLiteralProblem,
  RegexWorkLimitError,
} from './linear-regex';
import { RE2JS } from 're2js';

/**
 * Patterns that backtrack exponentially (or with a high polynomial degree) on V8, each with an input
 * long enough that V8 would not finish within the test's timeout, and that RE2 must answer.
 */
const CATASTROPHIC: [string, string, boolean][] = [
  ['(a+)+$', `${'a'.repeat(5000)}!`, false],
  ['(a|aa)+$', `${'a'.repeat(5000)}!`, false],
  ['(.*a){20}', `${'b'.repeat(5000)}${'a'.repeat(19)}`, false],
  ['^(\\w+\\s?)*$', `${'word '.repeat(1000)}!`, false],
  ['(x+x+)+y', 'x'.repeat(5000), false],
  ['^(([a-z])+.)+[A-Z]([a-z])+$', `${'aaaaaaaaaa'.repeat(500)}!`, false],
  ['(a+)+$', 'a'.repeat(5000), true],
];

async function evaluateWith(
  expression: string,
  input: unknown,
  engine: 'linear' | 'native',
): Promise<unknown> {
  const options =
    engine === 'linear' ? { RegexEngine: LinearRegExp as unknown as RegExpConstructor } : {};
  return jsonata(expression, options).evaluate(input);
}

describe('LinearRegex', () => {
  it.each(CATASTROPHIC)(
    'answers the catastrophic pattern %j in linear time',
    (pattern, text, expected) => {
      expect(LinearRegex.compile(pattern).test(text)).toBe(expected);
      expect(new PatternMatcher().test(pattern, text)).toBe(expected);
    },
  );

  it('maps the JavaScript flags i, m, s (and g, u) to RE2', () => {
    expect(LinearRegex.compile('abc').test('ABC')).toBe(false);
    expect(LinearRegex.compile('abc', 'i').test('xABCx')).toBe(true);
    expect(LinearRegex.compile('^b$').test('a\nb\nc')).toBe(false);
    expect(LinearRegex.compile('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(LinearRegex.compile('a.c').test('a\nc')).toBe(false);
    expect(LinearRegex.compile('a.c', 's').test('a\nc')).toBe(true);
    expect(LinearRegex.compile('^.$', 'u').test('😀')).toBe(true);
    expect(LinearRegex.compile('b', 'gimsu').test('B')).toBe(true);
  });

  it('refuses flags it cannot honour, and repeated flags', () => {
    for (const flags of ['y', 'd', 'v', 'x', 'ii', 'gg']) {
      expect(() => LinearRegex.compile('a', flags)).toThrow(LinearRegexError);
    }
    expect(linearRegexProblem('a', 'y')).toBe(
      'regular expression flag "y" is not supported (supported: g, i, m, s, u)',
    );
    expect(linearRegexProblem('a', 'ii')).toBe('regular expression flag "i" is repeated');
  });

  it.each([
    ['(?=x)a', 'lookahead `(?=`'],
    ['a(?!x)', 'lookahead `(?!`'],
    ['(?<=x)a', 'lookbehind `(?<=`'],
    ['(?<!x)a', 'lookbehind `(?<!`'],
    ['(a)\\1', 'backreference `\\1`'],
    ['(?<n>a)\\k<n>', 'backreference `\\k`'],
    ['a*+', 'possessive quantifier `*+`'],
    ['a++b', 'possessive quantifier `++`'],
    ['a{2}+', 'possessive quantifier `{2}+`'],
    ['(?>a|ab)c', 'atomic group `(?>`'],
    ['\\u00e9', 'escape `\\u`'],
  ])('refuses %j naming the unsupported construct', (pattern, construct) => {
    expect(linearRegexProblem(pattern)).toBe(`${construct} is not supported: ${RE2_SYNTAX}`);
  });

  it.each([
    ['(unclosed', 'invalid regular expression: missing closing ): `(unclosed`'],
    ['[z-a]', 'invalid regular expression: invalid character class range: `z-a`'],
    ['*a', 'invalid regular expression: missing argument to repetition operator: `*`'],
    ['a{1001}', "invalid regular expression: repeat count `{1001}` above RE2's limit of 1000"],
  ])('reports the invalid pattern %j', (pattern, message) => {
    expect(linearRegexProblem(pattern)).toBe(message);
  });

  it('accepts RE2 syntax a JavaScript author expects: classes, Unicode, named groups', () => {
    for (const p of ['\\d{3}-\\d{4}', '\\p{L}+', '(?<word>\\w+)', '(?P<w>\\w+)', '\\x{1F600}']) {
      expect(linearRegexProblem(p)).toBeUndefined();
    }
  });

  it(`refuses a pattern compiling to more than ${MAX_REGEX_PROGRAM_SIZE} instructions`, () => {
    expect(linearRegexProblem('\\w{1000}\\w{900}')).toBeUndefined();
    expect(linearRegexProblem('\\w{1000}\\w{1000}\\w{1000}')).toMatch(
      /^regular expression too large: it would compile to more than 2000 instructions/,
    );
    // Within the estimate, which leaves out the two instructions of every program: the exact check.
    expect(linearRegexProblem('\\w{1000}\\w{999}')).toMatch(
      /^regular expression too large: it compiles to 2001 instructions, at most 2000$/,
    );
  });

  it.each([
    '[a-z]{2,50}@[a-z]{2,50}\\.[a-z]{2,10}',
    '\\d{4}-\\d{2}-\\d{2}',
    '(foo|bar)+',
    '(?<year>\\d{4})-(?:0[1-9]|1[0-2])?',
    '(?i)\\p{L}{3,}[]x]\\x{1F600}*?',
    '\\Qa.c\\E{2}(a{10}){10}',
    '\\w{1000}\\w{900}',
  ])('estimates %j at its exact size, and compiles it', (pattern) => {
    // Every program has a match and a fail instruction the estimate leaves out.
    expect(estimateProgramSize(pattern)).toBe(RE2JS.compile(pattern).programSize() - 2);
    expect(linearRegexProblem(pattern)).toBeUndefined();
  });

  it.each([
    ['a counted repeat written many times', 'a{1000}'.repeat(142)],
    ['alternatives of counted repeats', '(?:a{1000}|b{1000})'.repeat(52)],
    ['nested counted repeats', '(a{1000}){1000}'],
    ['deeply nested counted repeats', `${'(?:'.repeat(90)}a{1000}${'){1000}'.repeat(90)}`],
  ])('refuses %s before compiling it', (_shape, pattern) => {
    // RE2JS.compile expands the repeats before its size can be read; this message is the estimate's.
    expect(linearRegexProblem(pattern)).toMatch(
      /^regular expression too large: it would compile to more than 2000 instructions/,
    );
  });

  it(`refuses a pattern longer than ${MAX_REGEX_LENGTH} characters before reading it`, () => {
    // 10 000 repeats of 1000: ten million instructions, gigabytes if RE2 were handed it.
    expect(linearRegexProblem('a{1000}'.repeat(10_000))).toBe(
      `regular expression too long: it has 70000 characters, at most ${MAX_REGEX_LENGTH}`,
    );
    expect(linearRegexProblem('a'.repeat(MAX_REGEX_LENGTH))).toBeUndefined();
    expect(linearRegexProblem('a'.repeat(MAX_REGEX_LENGTH + 1))).toMatch(
      /^regular expression too long/,
    );
  });

  it('stops a check whose work would exceed its budget, across the patterns it runs', () => {
    const big = LinearRegex.compile('\\w{1000}x');
    const text = 'a'.repeat(Math.ceil(MAX_REGEX_WORK / big.programSize) + 1);
    expect(() => big.test(text)).toThrow(RegexWorkLimitError);
    expect(() => big.test(text)).toThrow(/is too costly to run against \d+ characters/);
    const budget = new RegexBudget(1000);
    const small = LinearRegex.compile('ab');
    expect(small.test('x'.repeat(100), budget)).toBe(false);
    expect(() => {
      for (let i = 0; i < 10; i++) small.test('x'.repeat(100), budget);
    }).toThrow(RegexWorkLimitError);
  });
});

describe('LinearRegExp (JSONata RegexEngine)', () => {
  it('follows RegExp.prototype.exec: index, groups, input and lastIndex with g', () => {
    const re = new LinearRegExp('(\\d)(x)?', 'g');
    const first = re.exec('a1b2x');
    expect(first && [...first]).toEqual(['1', '1', undefined]);
    expect(first?.index).toBe(1);
    expect(first?.input).toBe('a1b2x');
    expect(re.lastIndex).toBe(2);
    const second = re.exec('a1b2x');
    expect(second && [...second]).toEqual(['2x', '2', 'x']);
    expect(re.lastIndex).toBe(5);
    expect(re.exec('a1b2x')).toBeNull();
    expect(re.lastIndex).toBe(0);
    re.lastIndex = 99;
    expect(re.exec('a1')).toBeNull();
    expect(re.lastIndex).toBe(0);
  });

  it('answers like RegExp when two texts are searched in turn', () => {
    const texts = ['a1b22c333', 'x9y88'];
    const linear = new LinearRegExp('\\d+', 'g');
    const native = /\d+/g;
    const seen: [unknown, unknown][] = [];
    for (let i = 0; i < 8; i++) {
      const text = texts[i % 2];
      linear.lastIndex = native.lastIndex;
      const [l, n] = [linear.exec(text), native.exec(text)];
      seen.push([l && [l[0], l.index, linear.lastIndex], n && [n[0], n.index, native.lastIndex]]);
    }
    for (const [l, n] of seen) expect(l).toEqual(n);
  });

  it('searches from 0 and leaves lastIndex alone without g', () => {
    const re = new LinearRegExp('b');
    re.lastIndex = 3;
    expect(re.exec('abcb')?.index).toBe(1);
    expect(re.lastIndex).toBe(3);
    expect(re.test('xyz')).toBe(false);
  });

  it('takes a RegExp and its flags, as JSONata passes its regex literals', () => {
    const re = new LinearRegExp(/A(?<rest>b+)/gi);
    expect(re.source).toBe('A(?<rest>b+)');
    expect(re.flags).toBe('gi');
    expect(re.global).toBe(true);
    const match = re.exec('xaBBb');
    expect(match?.index).toBe(1);
    expect(match?.groups).toEqual({ rest: 'BBb' });
    expect(String(re)).toBe('/A(?<rest>b+)/gi');
  });

  it('counts positions in UTF-16 units like RegExp', () => {
    const re = new LinearRegExp('é|x', 'g');
    const text = '😀aé😀x';
    expect(re.exec(text)?.index).toBe(text.indexOf('é'));
    expect(re.exec(text)?.index).toBe(text.indexOf('x'));
  });

  it('refuses what RE2 cannot run, when JSONata compiles the literal', () => {
    expect(() => new LinearRegExp(/(?=a)/g)).toThrow(/lookahead `\(\?=` is not supported/);
  });

  const pipelines: [string, unknown][] = [
    ['$match(s, /(\\d+)-(\\d+)?/)', { s: 'a 12-34 b 5- c' }],
    ['$match(s, /[aeiou]/i, 2)', { s: 'hEllo wOrld' }],
    ['$replace(s, /(\\w+)@(\\w+)/, "$2 at $1")', { s: 'ann@x and bob@y' }],
    ['$replace(s, /\\s+/, " ", 1)', { s: 'a   b    c' }],
    ['$replace(s, /(?<n>\\d)/, function($m) { $string($number($m.match) * 2) })', { s: 'a1b4' }],
    ['$split(s, /,\\s*/)', { s: 'a, b,c,  d' }],
    ['$split(s, /;/, 2)', { s: 'x;y;z' }],
    ['$contains(s, /^wor/m)', { s: 'hello\nworld' }],
    ['$contains(s, /^wor/)', { s: 'hello\nworld' }],
    ['s ~> $replace(/a[\\s\\S]c/, "X") ~> $split(/X/)', { s: 'a\nc-abc-a c' }],
    ['items[$contains(name, /^b/)].name', { items: [{ name: 'ann' }, { name: 'bob' }] }],
    ['$map(items, function($v) { $match($v, /é+/).index })', { items: ['xéé', 'é', 'none'] }],
    ['$eval("$match(\\"a1b22\\", /\\\\d+/).match")', {}],
  ];

  it.each(pipelines)('gives the answer of RegExp in %s', async (expression, input) => {
    const native = await evaluateWith(expression, input, 'native');
    await expect(evaluateWith(expression, input, 'linear')).resolves.toEqual(native);
  });

  it('keeps JSONata refusing a pattern that matches the empty string forever', async () => {
    await expect(evaluateWith('$match("abc", /x*/)', {}, 'linear')).rejects.toMatchObject({
      code: 'D1004',
    });
  });

  it.each(CATASTROPHIC)(
    'answers the catastrophic %j through $match, $contains and $replace',
    async (pattern, text, expected) => {
      const expression = `[$contains(s, /${pattern}/), $count($match(s, /${pattern}/)) > 0]`;
      await expect(evaluateWith(expression, { s: text }, 'linear')).resolves.toEqual([
        expected,
        expected,
      ]);
      const replaced = await evaluateWith(`$replace(s, /${pattern}/, "#")`, { s: text }, 'linear');
      expect(replaced === text).toBe(!expected);
    },
  );
});

describe('regexLiteralProblem', () => {
  const problem = (expression: string) => regexLiteralProblem(jsonata(expression).ast());

  it('accepts expressions whose regex literals RE2 runs', () => {
    expect(problem('$match(s, /(\\d+)/i)')).toBeUndefined();
    expect(problem('"no regex here"')).toBeUndefined();
  });

  it.each([
    ['$match(s, /a(?=b)/)', '/a(?=b)/', 'lookahead'],
    ['s ~> $replace(/(a)\\1/, "")', '/(a)\\1/', 'backreference'],
    ['items[$contains(name, /(?<!x)y/)]', '/(?<!x)y/', 'lookbehind'],
    ['$f := function($v) { $split($v, /(?<n>a)\\k<n>/) }', '/(?<n>a)\\k<n>/', 'backreference'],
    ['{"k": [1, {"x": $match(s, /\\u00e9/)}]}', '/\\u00e9/', 'escape `\\u`'],
    ['($p := /\\w{1000}\\w{1000}\\w{1000}/; $p(s))', '/\\w{1000}\\w{1000}\\w{1000}/', 'too large'],
    ['$x ? $y : $match(s, /ok/) and $contains(s, /a{2000}/)', '/a{2000}/', 'repeat count'],
  ])('finds the unsupported literal in %s', (expression, literal, construct) => {
    const found = problem(expression);
    expect(found).toContain(`regular expression ${literal} at position `);
    expect(found).toContain(construct);
  });
});
