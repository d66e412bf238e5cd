import { visit, type JSONPath } from 'jsonc-parser';
import type { FieldError } from './errors';

/**
 * I-JSON (RFC 7493) checks of a request body that JSON.parse cannot make: duplicated member names
 * (JSON.parse keeps the last one silently) and Unicode noncharacters (U+FDD0-U+FDEF and the last two
 * code points of every plane). Unpaired surrogates are refused by jsonProblem() already.
 */

/** U+FDD0-U+FDEF, U+FFFE, U+FFFF, and U+nFFFE/U+nFFFF of planes 1-16 (as surrogate pairs). */
const NONCHARACTER =
  /[\ufdd0-\ufdef\ufffe\uffff]|[\ud83f\ud87f\ud8bf\ud8ff\ud93f\ud97f\ud9bf\ud9ff\uda3f\uda7f\udabf\udaff\udb3f\udb7f\udbbf\udbff][\udffe\udfff]/;
const NONCHARACTER_MESSAGE =
  'must not contain Unicode noncharacters (U+FDD0-U+FDEF, U+FFFE, U+FFFF and their equivalents in other planes)';
const DUPLICATE_MESSAGE = 'duplicated member name (request bodies are I-JSON, RFC 7493)';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * How many member names the JSON text holds: strings followed by a colon. The text is valid JSON
 * (JSON.parse accepted it) and UTF-8, whose multi-byte sequences never contain ASCII bytes, so every
 * unescaped quote outside a string opens one. Native `indexOf` does the scanning: a 1 MiB body costs
 * about a millisecond, a usual one microseconds.
 */
export function countMemberNames(text: Buffer): number {
  let count = 0;
  let open = text.indexOf(QUOTE);
  while (open !== -1) {
    let close = text.indexOf(QUOTE, open + 1);
    while (close !== -1 && isEscaped(text, close)) close = text.indexOf(QUOTE, close + 1);
    if (close === -1) break;
    let next = close + 1;
    while (next < text.length && isJsonSpace(text[next])) next++;
    if (text[next] === COLON) count++;
    open = text.indexOf(QUOTE, close + 1);
  }
  return count;
}

/** A quote preceded by an odd run of backslashes belongs to the string. */
function isEscaped(text: Buffer, quote: number): boolean {
  let backslashes = 0;
  for (let i = quote - 1; i >= 0 && text[i] === BACKSLASH; i--) backslashes++;
  return backslashes % 2 === 1;
}

function fieldOf(path: JSONPath): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  }
  return out || 'body';
}

/** The path of the first duplicated member name; only called once the counts disagree. */
function firstDuplicate(text: string): string | undefined {
  const open: Array<Set<string>> = [];
  let found: string | undefined;
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (name, _offset, _length, _line, _column, pathOf) => {
      const names = open[open.length - 1];
      if (found === undefined && names.has(name)) found = fieldOf([...pathOf(), name]);
      names.add(name);
    },
  });
  return found;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Member names in the parsed value, or -1 once a string or a key holds a noncharacter. No paths are
 * built here: this runs on every body, and a problem is named by noncharacterField() afterwards.
 */
function countMembers(body: object): number {
  let members = 0;
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (NONCHARACTER.test(value)) return -1;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      members += keys.length;
      for (const key of keys) {
        if (NONCHARACTER.test(key)) return -1;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return members;
}

/** The path of the first string or key holding a noncharacter, in document order. */
function noncharacterField(body: object): string {
  const pending: Array<[unknown, string]> = [[body, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (NONCHARACTER.test(value)) return path || 'body';
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}[${i}]`]);
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        if (NONCHARACTER.test(keys[i])) return join(path, keys[i]);
        pending.push([(value as Record<string, unknown>)[keys[i]], join(path, keys[i])]);
      }
    }
  }
  return 'body';
}

/**
 * The first I-JSON problem of a parsed request body, given the bytes it was parsed from. The parsed
 * value (its depth already bounded by jsonProblem()) is walked once to find noncharacters and count
 * member names; only when a problem is found is it walked again, or the text scanned, to name it.
 */
export function iJsonProblem(text: Buffer, body: object): FieldError | undefined {
  const members = countMembers(body);
  if (members < 0) return { field: noncharacterField(body), message: NONCHARACTER_MESSAGE };
  if (members === countMemberNames(text)) return undefined;
  const field = firstDuplicate(text.toString('utf8'));
  return field === undefined ? undefined : { field, message: DUPLICATE_MESSAGE };
}
