import { registerDecorator, type ValidationArguments } from 'class-validator';

/**
 * The largest amount of USD a budget may name (a workspace's monthly limit, a `maxCostUsd`). Not a
 * setting: with at most 6 decimals, an amount up to 10^9 has at most 15 significant digits, which a
 * JSON number (an IEEE double) holds exactly, so the decimal the client wrote is the one stored.
 */
export const MAX_USD_AMOUNT = 1_000_000_000;

/** Decimal places a budget amount may have: micro-dollars. */
export const USD_DECIMALS = 6;

/**
 * Why `value` is not a budget amount (a positive JSON number, at most 6 decimals, at most
 * MAX_USD_AMOUNT), as the end of a sentence naming the field; undefined when it is one.
 */
export function usdAmountProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return 'must be a number of USD (e.g. 25 or 0.05)';
  }
  if (value <= 0) return 'must be greater than 0';
  if (value > MAX_USD_AMOUNT) return `must not be greater than ${MAX_USD_AMOUNT}`;
  if (Number(value.toFixed(USD_DECIMALS)) !== value) {
    return `must have at most ${USD_DECIMALS} decimal places`;
  }
  return undefined;
}

/** A valid amount (usdAmountProblem) as the exact decimal string PostgreSQL stores: `0.05`, `10`. */
export function usdDecimal(value: number): string {
  const fixed = value.toFixed(USD_DECIMALS);
  return fixed.replace(/0+$/, '').replace(/\.$/, '');
}

/** A budget amount (usdAmountProblem); the message names the property. */
export function IsUsdAmount(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isUsdAmount',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => usdAmountProblem(value) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? String(propertyName)} ${usdAmountProblem(args?.value) ?? 'is invalid'}`,
      },
    });
}

/** What exceeding a budget does: fail the step (default), or pause the run for a human decision. */
export const ON_BUDGET_EXCEEDED = ['fail', 'approval'] as const;
export type OnBudgetExceeded = (typeof ON_BUDGET_EXCEEDED)[number];

/**
 * An exact decimal string (as PostgreSQL's numeric prints it: `10.000120000000`, `-0.5`) rounded half
 * up to `places` decimals and written with exactly that many: `10.000120`. For messages; no float.
 */
export function roundDecimal(decimal: string, places = USD_DECIMALS): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(decimal.trim());
  if (!match) throw new RangeError(`not a decimal: ${decimal}`);
  const [, sign, whole, frac = ''] = match;
  const kept = BigInt(whole + frac.padEnd(places, '0').slice(0, places));
  const roundUp = (frac[places] ?? '0') >= '5';
  const scaled = (kept + (roundUp ? 1n : 0n)).toString().padStart(places + 1, '0');
  const out = places === 0 ? scaled : `${scaled.slice(0, -places)}.${scaled.slice(-places)}`;
  return sign && /[1-9]/.test(out) ? `-${out}` : out;
}

/** The exact sum of non-negative decimal strings (`0.0001851`, `12`), as a decimal string. */
export function addDecimals(...decimals: string[]): string {
  const parts = decimals.map((d) => {
    const match = /^(\d+)(?:\.(\d*))?$/.exec(d.trim());
    if (!match) throw new RangeError(`not a non-negative decimal: ${d}`);
    return { whole: match[1], frac: match[2] ?? '' };
  });
  const scale = Math.max(0, ...parts.map((p) => p.frac.length));
  const total = parts.reduce((sum, p) => sum + BigInt(p.whole + p.frac.padEnd(scale, '0')), 0n);
  if (scale === 0) return total.toString();
  const s = total.toString().padStart(scale + 1, '0');
  return `${s.slice(0, -scale)}.${s.slice(-scale)}`.replace(/0+$/, '').replace(/\.$/, '');
}
