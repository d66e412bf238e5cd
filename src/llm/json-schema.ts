/**
 * A small JSON Schema validator for the `jsonSchema` guardrail: the keywords that describe the shape of
 * a model's JSON answer. Supported: type (string or array, `integer` included), enum, const,
 * properties, required, additionalProperties (boolean or schema), items (one schema), minItems,
 * maxItems, minLength, maxLength, pattern (RE2 syntax, matched in linear time), minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum (numeric form), allOf, anyOf, oneOf, not. Other keywords ($ref,
 * formats, patternProperties, ...) are ignored.
 */
import { linearRegexProblem, PatternMatcher } from '../common/linear-regex';

export type JsonSchema = Record<string, unknown>;

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

function typeOf(value: unknown): JsonType | 'unsupported' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'string':
      return 'string';
    case 'object':
      return 'object';
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      break;
  }
  return 'unsupported';
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Most steps one check may take: one per pair of schema node and answer node it compares, per enum or
 * const node compared, per property or required key looked at. The cost of a schema grows as its size
 * times the answer's (`items.anyOf` with 3000 schemas against a 49 KB answer took 2.5 s on the event
 * loop); this keeps a check to tens of milliseconds.
 */
export const MAX_SCHEMA_VISITS = 200_000;

/** Violations collected per check: the reason shows a few, and the rest only cost time. */
export const MAX_SCHEMA_ERRORS = 10;

/**
 * The answer could not be checked: the check would take more than MAX_SCHEMA_VISITS steps, or one of
 * the schema's patterns cannot run. The guardrail then counts as broken, never as passed.
 */
export class SchemaCheckError extends Error {}

/** One check: the patterns it runs, the steps it has taken, code point counts already made. */
class Validation {
  private visits = 0;
  private readonly lengths = new Map<string, number>();

  constructor(private readonly patterns: PatternMatcher) {}

  private visit(): void {
    this.visits += 1;
    if (this.visits > MAX_SCHEMA_VISITS) {
      throw new SchemaCheckError(
        `checking it takes more than ${MAX_SCHEMA_VISITS} steps (schema nodes x answer nodes)`,
      );
    }
  }

  /** Code points of a string, counted once per check (many schemas may bound one long string). */
  private length(text: string): number {
    let n = this.lengths.get(text);
    if (n === undefined) {
      n = [...text].length;
      this.lengths.set(text, n);
    }
    return n;
  }

  private equal(a: unknown, b: unknown): boolean {
    this.visit();
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a) && Array.isArray(b)) {
      return a.length === b.length && a.every((v, i) => this.equal(v, b[i]));
    }
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) =>
        this.equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }

  /** Whether `value` satisfies `schema`: the check stops at the first violation. */
  matches(value: unknown, schema: unknown, path: string): boolean {
    const errors: string[] = [];
    this.collect(value, schema, path, errors, 1);
    return errors.length === 0;
  }

  /**
   * Adds the violations of `schema` by `value` to `errors`, stopping once it holds `limit`. Pushed one
   * at a time: spreading a large array into push overflows the stack.
   */
  collect(value: unknown, schema: unknown, path: string, errors: string[], limit: number): void {
    this.visit();
    if (schema === true || schema === undefined) return;
    if (schema === false) {
      errors.push(`${path}: no value is allowed here`);
      return;
    }
    if (!isSchema(schema)) return;
    /** Records a violation; true when no more are wanted. */
    const fail = (message: string): boolean => {
      errors.push(`${path}: ${message}`);
      return errors.length >= limit;
    };
    const full = () => errors.length >= limit;

    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
      if (!types.some((t) => typeof t === 'string' && matchesType(value, t))) {
        fail(`must be ${types.join(' or ')}`);
        return;
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => this.equal(e, value))) {
      if (fail(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`)) return;
    }
    if ('const' in schema && !this.equal(schema.const, value)) {
      if (fail(`must be ${JSON.stringify(schema.const)}`)) return;
    }

    if (typeof value === 'string') {
      if (typeof schema.minLength === 'number' && this.length(value) < schema.minLength) {
        if (fail(`must have at least ${schema.minLength} characters`)) return;
      }
      if (typeof schema.maxLength === 'number' && this.length(value) > schema.maxLength) {
        if (fail(`must have at most ${schema.maxLength} characters`)) return;
      }
      if (typeof schema.pattern === 'string' && !this.test(schema.pattern, value, path)) {
        if (fail(`must match ${JSON.stringify(schema.pattern)}`)) return;
      }
    }

    if (typeof value === 'number') {
      const bounds: [unknown, (n: number) => boolean, string][] = [
        [schema.minimum, (n) => value < n, '>='],
        [schema.maximum, (n) => value > n, '<='],
        [schema.exclusiveMinimum, (n) => value <= n, '>'],
        [schema.exclusiveMaximum, (n) => value >= n, '<'],
      ];
      for (const [bound, breaks, sign] of bounds) {
        if (typeof bound === 'number' && breaks(bound) && fail(`must be ${sign} ${bound}`)) return;
      }
    }

    if (Array.isArray(value)) {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
        if (fail(`must have at least ${schema.minItems} items`)) return;
      }
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
        if (fail(`must have at most ${schema.maxItems} items`)) return;
      }
      if (schema.items !== undefined && !Array.isArray(schema.items)) {
        for (let i = 0; i < value.length && !full(); i++) {
          this.collect(value[i], schema.items, childPath(path, i), errors, limit);
        }
      }
    }

    if (typeOf(value) === 'object') {
      const obj = value as Record<string, unknown>;
      const has = (k: string) => Object.prototype.hasOwnProperty.call(obj, k);
      if (Array.isArray(schema.required)) {
        for (const key of schema.required) {
          this.visit();
          if (typeof key === 'string' && !has(key) && fail(`must have property "${key}"`)) return;
        }
      }
      const properties = isSchema(schema.properties) ? schema.properties : {};
      for (const [key, sub] of Object.entries(properties)) {
        if (full()) return;
        this.visit();
        if (has(key)) this.collect(obj[key], sub, childPath(path, key), errors, limit);
      }
      const extra = schema.additionalProperties;
      if (extra !== undefined && extra !== true) {
        for (const key of Object.keys(obj)) {
          if (full()) return;
          this.visit();
          if (Object.prototype.hasOwnProperty.call(properties, key)) continue;
          if (extra === false) fail(`must not have property "${key}"`);
          else this.collect(obj[key], extra, childPath(path, key), errors, limit);
        }
      }
    }
    if (full()) return;

    if (Array.isArray(schema.allOf)) {
      for (const sub of schema.allOf) {
        if (full()) return;
        this.collect(value, sub, path, errors, limit);
      }
    }
    if (
      Array.isArray(schema.anyOf) &&
      !schema.anyOf.some((sub) => this.matches(value, sub, path))
    ) {
      if (fail('must match at least one schema of anyOf')) return;
    }
    if (Array.isArray(schema.oneOf)) {
      const matching = schema.oneOf.filter((sub) => this.matches(value, sub, path)).length;
      if (matching !== 1 && fail(`must match exactly one schema of oneOf (${matching})`)) return;
    }
    if (schema.not !== undefined && this.matches(value, schema.not, path)) {
      fail('must not match the schema of not');
    }
  }

  /** Whether `text` matches; a pattern that cannot run fails the whole check, whatever encloses it. */
  private test(pattern: string, text: string, path: string): boolean {
    try {
      return this.patterns.test(pattern, text);
    } catch (err) {
      throw new SchemaCheckError(
        `${path}: schema pattern ${JSON.stringify(pattern)} could not be checked: ${(err as Error).message}`,
      );
    }
  }
}

/**
 * The violations of `schema` by `value`, each as `<path>: <message>` (`$` is the root), at most
 * MAX_SCHEMA_ERRORS of them. `patterns` compiles each `pattern` once and bounds the matching work of
 * the whole validation. Throws SchemaCheckError when the answer cannot be checked: past
 * MAX_SCHEMA_VISITS steps, or a pattern that cannot run (inside `not` or `anyOf` it must not pass for
 * a mismatch).
 */
export function validateJsonSchema(
  value: unknown,
  schema: unknown,
  patterns = new PatternMatcher(),
): string[] {
  const errors: string[] = [];
  new Validation(patterns).collect(value, schema, '$', errors, MAX_SCHEMA_ERRORS);
  return errors;
}

/**
 * The `pattern` keywords of a schema that the linear-time engine cannot run, each with its path under
 * `path` (`jsonSchema.properties.code.pattern`). Descends where validateJsonSchema does, so every
 * pattern that can ever run is checked when the definition is created.
 */
export function schemaPatternProblems(
  schema: unknown,
  path: string,
): { path: string; problem: string }[] {
  const found: { path: string; problem: string }[] = [];
  addPatternProblems(schema, path, found);
  return found;
}

function addPatternProblems(
  schema: unknown,
  path: string,
  found: { path: string; problem: string }[],
): void {
  if (!isSchema(schema)) return;
  if (typeof schema.pattern === 'string') {
    const problem = linearRegexProblem(schema.pattern);
    if (problem) found.push({ path: childPath(path, 'pattern'), problem });
  }
  const nested: [string, unknown][] = [
    ['items', schema.items],
    ['additionalProperties', schema.additionalProperties],
    ['not', schema.not],
  ];
  if (isSchema(schema.properties)) {
    const properties = childPath(path, 'properties');
    for (const [key, sub] of Object.entries(schema.properties)) {
      addPatternProblems(sub, childPath(properties, key), found);
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((sub, i) => nested.push([`${keyword}[${i}]`, sub]));
  }
  for (const [keyword, sub] of nested) addPatternProblems(sub, `${path}.${keyword}`, found);
}
