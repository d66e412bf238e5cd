import {
  evaluateExpression,
  ExpressionError,
  ExpressionLimitError,
  expressionSyntaxError,
  MAX_EXPRESSION_LENGTH,
  MAX_STRING_LENGTH,
} from './jsonata';
import { MAX_REGEX_WORK } from './linear-regex';

describe('expressionSyntaxError', () => {
  it('accepts a valid expression', () => {
    expect(expressionSyntaxError('$sum(items.price) > 10')).toBeUndefined();
  });

  it('reports an expression that does not parse', () => {
    expect(expressionSyntaxError('items[')).toMatch(/^invalid JSONata expression: /);
  });

  it('reports a regex literal the linear-time engine cannot run', () => {
    expect(expressionSyntaxError('$match(s, /x(?=y)/)')).toMatch(
      /^regular expression \/x\(\?=y\)\/ at position \d+: lookahead `\(\?=` is not supported/,
    );
    expect(expressionSyntaxError('$match(s, /x(y)?/i)')).toBeUndefined();
  });

  it(`accepts ${MAX_EXPRESSION_LENGTH} characters and rejects one more`, () => {
    const exact = `"${'a'.repeat(MAX_EXPRESSION_LENGTH - 2)}"`;
    expect(exact).toHaveLength(MAX_EXPRESSION_LENGTH);
    expect(expressionSyntaxError(exact)).toBeUndefined();
    expect(expressionSyntaxError(`${exact} `)).toBe(
      `must be at most ${MAX_EXPRESSION_LENGTH} characters`,
    );
  });
});

describe('evaluateExpression', () => {
  it('evaluates against the input', async () => {
    await expect(
      evaluateExpression('{"total": $sum(items.price)}', { items: [{ price: 2 }, { price: 3 }] }),
    ).resolves.toEqual({ total: 5 });
  });

  it('binds the given variables ($attempt)', async () => {
    await expect(evaluateExpression('$attempt * 10', {}, { attempt: 3 })).resolves.toBe(30);
  });

  it('turns $error("msg") into an ExpressionError carrying the message, not a limit', async () => {
    const result = evaluateExpression('$error("price missing")', {});
    await expect(result).rejects.toBeInstanceOf(ExpressionError);
    await expect(result).rejects.not.toBeInstanceOf(ExpressionLimitError);
    await expect(result).rejects.toThrow('price missing');
    const inEval = evaluateExpression('$eval("$error(\\"price missing\\")")', {});
    await expect(inEval).rejects.not.toBeInstanceOf(ExpressionLimitError);
    await expect(inEval).rejects.toThrow(/passed to function eval: "price missing"/);
  });

  it('reuses a compiled expression across evaluations without mixing their inputs', async () => {
    const results = await Promise.all(
      [1, 2, 3].map((n) => evaluateExpression('n * $attempt', { n }, { attempt: 10 })),
    );
    expect(results).toEqual([10, 20, 30]);
  });

  it.each([
    ['a tail-recursive loop', '($l := function($n){ $l($n + 1) }; $l(0))', /time budget of 200 ms/],
    ['unbounded recursion', '($f := function($n){ 1 + $f($n + 1) }; $f(0))', /maximum depth/],
    ['a huge range', '[1..100000000]', /sequence longer than 1000000 items/],
    ['a doubling array', '($f := function($a){ $f($append($a, $a)) }; $f([1]))', /sequence longer/],
    [
      'a doubling string',
      '($f := function($s){ $f($s & $s) }; $f("ab"))',
      `string longer than ${MAX_STRING_LENGTH} characters`,
    ],
    [
      'a doubling string in $reduce',
      '$reduce([1..40], function($acc, $v){ $acc & $acc }, "ab")',
      `string longer than ${MAX_STRING_LENGTH} characters`,
    ],
  ])(
    'reports %s as an ExpressionLimitError (never retried)',
    async (_case, expression, message) => {
      const result = evaluateExpression(expression, {}, {}, 200);
      await expect(result).rejects.toBeInstanceOf(ExpressionLimitError);
      await expect(result).rejects.toThrow(message);
    },
  );

  it('rejects an expression that does not parse with an ExpressionError', async () => {
    await expect(evaluateExpression('(', {})).rejects.toThrow(/^invalid JSONata expression: /);
  });

  it('stops an infinite tail-recursive function at the time budget instead of hanging', async () => {
    const started = Date.now();
    await expect(
      evaluateExpression('($loop := function($n){ $loop($n + 1) }; $loop(0))', {}, {}, 200),
    ).rejects.toThrow('expression exceeded its time budget of 200 ms');
    // The budget, plus generous slack for a loaded machine; without it the call never returns.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops unbounded non-tail recursion at the depth limit', async () => {
    await expect(
      evaluateExpression('($f := function($n){ 1 + $f($n + 1) }; $f(0))', {}),
    ).rejects.toThrow('expression exceeded the maximum depth');
  });

  it('still allows ordinary recursion (factorial of 50)', async () => {
    const value = await evaluateExpression(
      '($fact := function($n){ $n <= 1 ? 1 : $n * $fact($n - 1) }; $fact(50))',
      {},
    );
    expect(value).toBeCloseTo(3.0414093201713376e64, -50);
  });

  it.each([
    ['(a+)+$', `${'a'.repeat(5000)}!`],
    ['(a|aa)+$', `${'a'.repeat(5000)}!`],
    ['(.*a){20}', `${'b'.repeat(5000)}${'a'.repeat(19)}`],
    ['^(\\w+\\s?)*$', `${'word '.repeat(1000)}!`],
  ])('runs the regex literal /%s/ in linear time (RE2 engine)', async (pattern, text) => {
    const expression = `[$contains(s, /${pattern}/), $replace(s, /${pattern}/, "#") = s]`;
    await expect(evaluateExpression(expression, { s: text })).resolves.toEqual([false, true]);
  });

  it('fails, without retries, naming a regex RE2 cannot run that $eval builds', async () => {
    const result = evaluateExpression('$eval("$match(\\"ab\\", /a(?=b)/)")', {});
    await expect(result).rejects.toBeInstanceOf(ExpressionLimitError);
    await expect(result).rejects.toThrow(/lookahead `\(\?=` is not supported/);
  });

  it('stops a regex past its work budget with an ExpressionLimitError (never retried)', async () => {
    // 14 instructions over MAX_REGEX_WORK / 10 characters: above the budget of one regex call.
    const s = 'a'.repeat(MAX_REGEX_WORK / 10);
    for (const expression of [
      '$contains(s, /a[ab]{10}$/)',
      '$eval("$contains(s, /a[ab]{10}$/)")',
    ]) {
      const result = evaluateExpression(expression, { s });
      await expect(result).rejects.toBeInstanceOf(ExpressionLimitError);
      await expect(result).rejects.toThrow(/is too costly to run against \d+ characters/);
    }
  });

  it('reports a regex RE2 cannot run, built by $eval, as an ExpressionLimitError', async () => {
    const result = evaluateExpression('$eval("$match(\\"ab\\", /a{1000}a{1000}a{1000}/)")', {});
    await expect(result).rejects.toBeInstanceOf(ExpressionLimitError);
    await expect(result).rejects.toThrow(/^regular expression too large/);
  });

  it('keeps the limits of JSONata itself when $eval hits them', async () => {
    const result = evaluateExpression('$eval("[1..100000000]")', {});
    await expect(result).rejects.toBeInstanceOf(ExpressionLimitError);
    await expect(result).rejects.toThrow(/sequence longer than/);
  });

  it('refuses to build huge sequences', async () => {
    await expect(evaluateExpression('$sum([1..5000000])', {})).rejects.toThrow(
      /expression built a sequence longer than/,
    );
  });
});
