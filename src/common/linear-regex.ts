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
 * Longest pattern accepted, in UTF-16 units, refused before anything else reads it: it bounds the
 * cost of the size estimate and of RE2's parser (guardrail patterns and schema keywords are
 * otherwise only bounded by the definition's size).
 */
export const MAX_REGEX_LENGTH = 1000;

/**
 * Budget of one check (one guardrail evaluation, one regex call inside JSONata), in program
 * instructions x characters of text. Where RE2 runs its DFA (most patterns) a unit costs about 1.5 ns;
 * where it falls back to its NFA, about 14 to 22 ns (`a[ab]{25}$` against 1.7 M characters took 0.7 s
 * within a 50 M budget): this bounds a check on the event loop to about a tenth of a second and
 * leaves ordinary checks room (10 instructions of patterns over 500 000 characters, 100 over 50 000).
 */
export const MAX_REGEX_WORK = 5_000_000;

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

/** RE2 refuses a repeat count above this one while parsing, before expanding anything. */
const RE2_MAX_REPEAT = 1000;

/** `{n}`, `{n,}` or `{n,m}` at lastIndex (sticky); any other `{` is a literal for RE2. */
const COUNTED_REPEAT = /\{(\d+)(,(\d*))?\}/y;

/** The index after the escape starting at `i` (a backslash): `\x{…}` and `\p{…}` take their braces. */
function skipEscape(source: string, i: number): number {
  const kind = source[i + 1];
  if ((kind === 'x' || kind === 'p' || kind === 'P') && source[i + 2] === '{') {
    const close = source.indexOf('}', i + 3);
    return close < 0 ? source.length : close + 1;
  }
  return i + 2;
}

/** The index after the character class opening at `i`: `[]a]` and `[^]a]` hold a `]`. */
function skipClass(source: string, i: number): number {
  let j = i + 1;
  if (source[j] === '^') j++;
  if (source[j] === ']') j++;
  while (j < source.length && source[j] !== ']') {
    if (source[j] === '\\') j = skipEscape(source, j);
    else if (source.startsWith('[:', j) && source.indexOf(':]', j + 2) > 0) {
      j = source.indexOf(':]', j + 2) + 2;
    } else j++;
  }
  return j + 1;
}

/** One group being read by estimateProgramSize; the pattern itself is the outermost. */
interface Frame {
  /** The finished alternatives of the group, and one instruction per `|`. */
  done: number;
  /** The alternative being read. */
  current: number;
  /** The last atom or group of `current`, which a quantifier repeats. */
  last: number;
  capturing: boolean;
}

/**
 * The size of the RE2 program of `source`, estimated from the text in one pass that stops as soon as it
 * exceeds MAX_REGEX_PROGRAM_SIZE (returning what it counted so far): a character, class or escape is one instruction, a group the
 * sum of its parts (two more when it captures), an alternation the sum of its branches; `{n,m}` repeats
 * its atom or group m times (with one instruction per optional copy), `{n,}` n times, and `*`, `+`, `?`
 * add one. Measured against re2js it is exact but for the two instructions every program has, and for
 * single characters RE2 merges (`a|b` is `[ab]`). Malformed patterns are left to RE2's parser.
 */
export function estimateProgramSize(source: string): number {
  const root: Frame = { done: 0, current: 0, last: 0, capturing: false };
  const stack: Frame[] = [root];
  let frame = root;
  const add = (size: number) => {
    frame.current += size;
    frame.last = size;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\' && source[i + 1] === 'Q') {
      // \Q…\E: every character up to \E is a literal.
      const end = source.indexOf('\\E', i + 2);
      const stop = end < 0 ? source.length : end;
      if (stop > i + 2) {
        frame.current += stop - (i + 2);
        frame.last = 1;
      }
      i = end < 0 ? stop : end + 2;
    } else if (c === '\\') {
      add(1);
      i = skipEscape(source, i);
    } else if (c === '[') {
      add(1);
      i = skipClass(source, i);
    } else if (c === '(') {
      let capturing = true;
      i++;
      if (source[i] === '?') {
        // (?:…, (?i:…, (?i) or a named group (?<name>…, (?P<name>…: skip to the body.
        capturing = source[i + 1] === '<' || source[i + 1] === 'P';
        while (i < source.length && !':)>'.includes(source[i])) i++;
        if (source[i] !== ')') i++;
      }
      frame = { done: 0, current: 0, last: 0, capturing };
      stack.push(frame);
    } else if (c === ')' && stack.length > 1) {
      stack.pop();
      const group = frame;
      frame = stack[stack.length - 1];
      add(group.done + group.current + (group.capturing ? 2 : 0));
      i++;
    } else if (c === '|') {
      frame.done += frame.current + 1;
      frame.current = 0;
      frame.last = 0;
      i++;
    } else if (c === '*' || c === '+' || c === '?') {
      frame.current += 1;
      frame.last += 1;
      i++;
      if (source[i] === '?') i++; // lazy
    } else {
      COUNTED_REPEAT.lastIndex = i;
      const counted = c === '{' ? COUNTED_REPEAT.exec(source) : null;
      if (counted) {
        // Counts past RE2's limit are refused by its parser, which expands nothing.
        const min = Math.min(Number(counted[1]), RE2_MAX_REPEAT);
        const unbounded = counted[3] === '';
        const max =
          counted[2] === undefined || unbounded
            ? min
            : Math.min(Number(counted[3]), RE2_MAX_REPEAT);
        const repeated = unbounded
          ? frame.last * Math.max(min, 1) + 1
          : frame.last * max + Math.max(max - min, 0);
        frame.current += repeated - frame.last;
        frame.last = repeated;
        i += counted[0].length;
        if (source[i] === '?') i++; // lazy
      } else {
        add(1);
        i++;
      }
    }
    if (frame.done + frame.current > MAX_REGEX_PROGRAM_SIZE) return frame.done + frame.current;
  }
  // An unclosed group is RE2's syntax error to report; its parts still count.
  return stack.reduce((sum, f) => sum + f.done + f.current, 0);
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
    if (source.length > MAX_REGEX_LENGTH) {
      throw new LinearRegexError(
        `regular expression too long: it has ${source.length} characters, at most ${MAX_REGEX_LENGTH}`,
      );
    }
    const bits = flagBits(flags);
    // RE2JS.compile expands every counted repeat before its size can be read: `a{1000}` written 125
    // times is 125 000 instructions, seconds and gigabytes on the event loop.
    if (estimateProgramSize(source) > MAX_REGEX_PROGRAM_SIZE) {
      throw new LinearRegexError(
        `regular expression too large: it would compile to more than ${MAX_REGEX_PROGRAM_SIZE} ` +
          'instructions (each character, class or group counted once per repetition)',
      );
    }
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
