import { addDecimals, MAX_USD_AMOUNT, roundDecimal, usdAmountProblem, usdDecimal } from './usd';

describe('usdAmountProblem', () => {
  it.each([0.000001, 0.05, 1, 10, 12.345678, 999_999_999.999999, MAX_USD_AMOUNT])(
    'accepts %p',
    (value) => expect(usdAmountProblem(value)).toBeUndefined(),
  );

  it.each<[unknown, RegExp]>([
    [0, /greater than 0/],
    [-1, /greater than 0/],
    [-0.000001, /greater than 0/],
    ['10', /number of USD/],
    [null, /number of USD/],
    [undefined, /number of USD/],
    [true, /number of USD/],
    [{}, /number of USD/],
    [Number.NaN, /number of USD/],
    [Number.POSITIVE_INFINITY, /number of USD/],
    [1.0000001, /at most 6 decimal places/],
    [0.0000001, /at most 6 decimal places/],
    [1e-7, /at most 6 decimal places/],
    [MAX_USD_AMOUNT + 0.000001, /not be greater than 1000000000/],
    [1e300, /not be greater than/],
  ])('refuses %p', (value, problem) => expect(usdAmountProblem(value)).toMatch(problem));
});

describe('usdDecimal', () => {
  it.each<[number, string]>([
    [10, '10'],
    [0.05, '0.05'],
    [0.1, '0.1'],
    [0.000001, '0.000001'],
    [12.345678, '12.345678'],
    [999_999_999.999999, '999999999.999999'],
    [MAX_USD_AMOUNT, '1000000000'],
  ])('writes %p as %p', (value, decimal) => expect(usdDecimal(value)).toBe(decimal));
});

describe('roundDecimal', () => {
  it.each<[string, string]>([
    ['10.000120000000', '10.000120'],
    ['0', '0.000000'],
    ['0.0000004', '0.000000'],
    ['0.0000005', '0.000001'],
    ['9.9999995', '10.000000'],
    ['12', '12.000000'],
    ['123456789.123456789', '123456789.123457'],
    ['-0.5', '-0.500000'],
  ])('rounds %s to %s', (decimal, rounded) => expect(roundDecimal(decimal)).toBe(rounded));
});

describe('addDecimals', () => {
  it('adds exactly where floating point would not', () => {
    expect(addDecimals('0.0001', '0.0002')).toBe('0.0003');
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
  });
  it.each<[string[], string]>([
    [[], '0'],
    [['0'], '0'],
    [['12', '0.000000000000000001'], '12.000000000000000001'],
    [['0.0001851', '0.0003402'], '0.0005253'],
    [['1.5', '2.5'], '4'],
    [['10.000000', '0'], '10'],
  ])('adds %p to %p', (decimals, sum) => expect(addDecimals(...decimals)).toBe(sum));
});
