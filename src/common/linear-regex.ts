import { types } from 'node:util';
import { type Matcher, RE2JS, RE2JSSyntaxException } from 're2js';

/**
 * Tenant regular expressions (guardrail patterns, jsonSchema `pattern`, regex literals in JSONata) run
 * on RE2 (re2js, pure JavaScript): matching time grows linearly with the text, never exponentially
 * as on V8's backtracking engine, where `(a+)+$` against 34 characters held the event loop for 73 s.
 * RE2 pays for that with its syntax: no lookaround, backreferences, atomic groups or possessive
 * quantifiers.
 */

/**
 * Largest compiled program accepted, in RE2 instructions (about one per character, class or repeated
 * item: `\w{1000}` is 1000). Matching costs up to text length x program size when RE2 has to leave its
 * DFA; a 110 000-instruction program written in 990 characters took 5 s on 10 000 characters.
 */
export const MAX_REGEX_PROGRAM_SIZE = 2000;

/**
 * Budget of one check (one guardrail evaluation, one regex call inside JSONata), in program
 * instructions x characters of text. Where RE2 runs its DFA (most patterns) a unit costs about 1.5 ns;
 * where it falls back to its NFA, up to about 22 ns measured here: the budget bounds the worst case to
 * about a second and leaves ordinary checks room (100 instructions of patterns over 500 000 characters).
 */
export const MAX_REGEX_WORK = 50_000_000;

/** A pattern the engine cannot run: bad syntax, an unsupported construct, flags, or its size. */
export class LinearRegexError extends Error {}

/** A match refused because it could cost more than MAX_REGEX_WORK. */
export class RegexWorkLimitError extends Error {}

const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  // RE2 always matches code points, which is what `u` asks of V8.
  u: 0,
  // Global only moves lastIndex (LinearRegExp); it changes nothing in the compiled program.
  g: 0,
};

/** The end of every "not supported" message: what tenant patterns are and what they cannot use. */
export const RE2_SYNTAX =
  'tenant patterns use RE2 syntax, matched in linear time (no lookahead, lookbehind, ' +
  'backreferences, atomic groups or possessive quantifiers; write \\x{HHHH} for \\uHHHH)';

/** Constructs RE2 refuses that authors of JavaScript patterns reach for, named in the error. */
function unsupportedConstruct(error: string, input: string): string | undefined {
  const head4 = input.slice(0, 4);
  const head3 = input.slice(0, 3);
  if (head3 === '(?=' || head3 === '(?!') return `lookahead \`${head3}\``;
  if (head4 === '(?<=' || head4 === '(?<!') return `lookbehind \`${head4}\``;
  if (head3 === '(?>') return 'atomic group `(?>`';
  if (/^\\([1-9]|k)/.test(input)) return `backreference \`${input.slice(0, 2)}\``;
  if (/^\\u/.test(input)) return 'escape `\\u`';
  if (error === 'invalid nested repetition operator' && input.endsWith('+')) {
    return `possessive quantifier \`${input}\``;
  }
  return undefined;
}

function describeSyntaxError(err: RE2JSSyntaxException): string {
  const input = err.getPattern() ?? '';
  const construct = unsupportedConstruct(err.getDescription(), input);
  if (construct) {
    return `${construct} is not supported: ${RE2_SYNTAX}`;
  }
  if (err.getDescription() === 'invalid repeat count') {
    return `invalid regular expression: repeat count \`${input}\` above RE2's limit of 1000`;
  }
  return `invalid regular expression: ${err.getDescription()}: \`${input}\``;
}

function flagBits(flags: string): number {
  let bits = 0;
  const seen = new Set<string>();
  for (const flag of flags) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined || seen.has(flag)) {
      const why = seen.has(flag) ? 'is repeated' : 'is not supported (supported: g, i, m, s, u)';
      throw new LinearRegexError(`regular expression flag "${flag}" ${why}`);
    }
    seen.add(flag);
    bits |= bit;
  }
  return bits;
}

/** A compiled tenant pattern. */
export class LinearRegex {
  readonly programSize: number;
  /** The matcher of the last text searched: JSONata walks one text match by match. */
  private matcher?: { text: string; matcher: Matcher };

  private constructor(
    readonly source: string,
    readonly flags: string,
    private readonly re: RE2JS,
  ) {
    this.programSize = re.programSize();
  }

  /** Compiles `source` with JavaScript flags; throws LinearRegexError naming what cannot run. */
  static compile(source: string, flags = ''): LinearRegex {
    const bits = flagBits(flags);
    let re: RE2JS;
    try {
      re = RE2JS.compile(source, bits);
    } catch (err) {
      if (err instanceof RE2JSSyntaxException) throw new LinearRegexError(describeSyntaxError(err));
      throw new LinearRegexError(`invalid regular expression: ${(err as Error).message}`);
    }
    const size = re.programSize();
    if (size > MAX_REGEX_PROGRAM_SIZE) {
      throw new LinearRegexError(
        `regular expression too large: it compiles to ${size} instructions, at most ${MAX_REGEX_PROGRAM_SIZE}`,
      );
    }
    return new LinearRegex(source, flags, re);
  }

  /** Whether the pattern matches anywhere in `text` (RE2's DFA where it can). */
  test(text: string, budget = new RegexBudget()): boolean {
    budget.charge(this, text.length);
    return this.re.test(text);
  }

  /** The first match at or after `from` (a UTF-16 index), shaped like RegExp.prototype.exec's. */
  execFrom(text: string, from: number, budget = new RegexBudget()): RegExpExecArray | null {
    budget.charge(this, text.length - from);
    // The DFA answers "no match" far faster than the capturing NFA finds it out.
    if (from === 0 && !this.re.test(text)) return null;
    if (this.matcher?.text !== text) this.matcher = { text, matcher: this.re.matcher(text) };
    const m = this.matcher.matcher;
    if (!m.find(from)) return null;
    const groups: (string | undefined)[] = [];
    for (let i = 0; i <= m.groupCount(); i++) groups.push(m.group(i) ?? undefined);
    const result = Object.assign(groups, {
      index: m.start(),
      input: text,
      groups: undefined as Record<string, string | undefined> | undefined,
    });
    const names = Object.entries(this.re.namedGroups());
    if (names.length > 0) {
      result.groups = Object.create(null) as Record<string, string | undefined>;
      for (const [name, index] of names) result.groups[name] = groups[index];
    }
    return result as unknown as RegExpExecArray;
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** The work of one check, shared by every pattern it runs (see MAX_REGEX_WORK). */
export class RegexBudget {
  private spent = 0;

  constructor(private readonly limit = MAX_REGEX_WORK) {}

  charge(regex: LinearRegex, textLength: number): void {
    this.spent += regex.programSize * Math.max(textLength, 1);
    if (this.spent > this.limit) {
      throw new RegexWorkLimitError(
        `regular expression ${regex.toString()} is too costly to run against ${textLength} characters ` +
          `(${regex.programSize} instructions x characters, over the budget of ${this.limit} per check)`,
      );
    }
  }
}

/** Why a pattern cannot run, or undefined when it can (definition-time validation). */
export function linearRegexProblem(source: string, flags = ''): string | undefined {
  try {
    LinearRegex.compile(source, flags);
    return undefined;
  } catch (err) {
    if (err instanceof LinearRegexError) return err.message;
    throw err;
  }
}

/**
 * The first regex literal of a parsed JSONata expression (`jsonata(expr).ast()`) that cannot run,
 * with its position, or undefined. The walk visits every property, so it needs no list of the node
 * shapes that can hold a regex.
 */
export function regexLiteralProblem(ast: unknown): string | undefined {
  const seen = new Set<object>();
  const pending: unknown[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const { type, value, position } = node as {
      type?: unknown;
      value?: unknown;
      position?: unknown;
    };
    if (type === 'regex' && types.isRegExp(value)) {
      const problem = linearRegexProblem(value.source, value.flags);
      if (problem) {
        return `regular expression /${value.source}/ at position ${String(position)}: ${problem}`;
      }
      continue;
    }
    pending.push(...Object.values(node));
  }
  return undefined;
}

/**
 * One check's tenant patterns (the guardrails of one answer): each compiled once, all sharing one
 * budget. Throws LinearRegexError or RegexWorkLimitError.
 */
export class PatternMatcher {
  private readonly compiled = new Map<string, LinearRegex>();
  private readonly budget = new RegexBudget();

  test(pattern: string, text: string): boolean {
    let regex = this.compiled.get(pattern);
    if (!regex) {
      regex = LinearRegex.compile(pattern);
      this.compiled.set(pattern, regex);
    }
    return regex.test(text, this.budget);
  }
}

/**
 * The RegExp subset JSONata 2.x uses through its `RegexEngine` option: it calls
 * `new RegexEngine(regexLiteral)` (a RegExp whose flags always include `g`), sets `lastIndex`, calls
 * `exec` and reads `index`, the groups and `lastIndex` back. Follows RegExp.prototype.exec: with `g`
 * the search starts at lastIndex, which moves to the end of the match, or back to 0 when none is left.
 */
export class LinearRegExp {
  lastIndex = 0;
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  private readonly regex: LinearRegex;

  constructor(pattern: string | RegExp, flags?: string) {
    const literal = types.isRegExp(pattern);
    this.source = literal ? pattern.source : String(pattern);
    this.flags = flags ?? (literal ? pattern.flags : '');
    this.global = this.flags.includes('g');
    this.regex = LinearRegex.compile(this.source, this.flags);
  }

  exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const from = this.global ? this.lastIndex : 0;
    if (from > text.length) {
      this.lastIndex = 0;
      return null;
    }
    const match = this.regex.execFrom(text, from);
    if (this.global) this.lastIndex = match ? match.index + match[0].length : 0;
    return match;
  }

  test(input: string): boolean {
    return this.exec(input) !== null;
  }

  toString(): string {
    return this.regex.toString();
  }
}
