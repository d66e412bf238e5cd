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

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The violations of `schema` by `value`, each as `<path>: <message>` (`$` is the root). `patterns`
 * compiles each `pattern` once and bounds the matching work of the whole validation.
 */
export function validateJsonSchema(
  value: unknown,
  schema: unknown,
  patterns = new PatternMatcher(),
  path = '$',
): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  if (!isSchema(schema)) return [];
  const errors: string[] = [];
  const fail = (message: string) => errors.push(`${path}: ${message}`);

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
    if (!types.some((t) => typeof t === 'string' && matchesType(value, t))) {
      fail(`must be ${types.join(' or ')}`);
      return errors;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) {
    fail(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if ('const' in schema && !deepEqual(schema.const, value)) {
    fail(`must be ${JSON.stringify(schema.const)}`);
  }

  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) {
      fail(`must have at least ${schema.minLength} characters`);
    }
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) {
      fail(`must have at most ${schema.maxLength} characters`);
    }
    if (typeof schema.pattern === 'string') {
      const pattern = JSON.stringify(schema.pattern);
      try {
        if (!patterns.test(schema.pattern, value)) fail(`must match ${pattern}`);
      } catch (err) {
        fail(`schema pattern ${pattern} could not be checked: ${(err as Error).message}`);
      }
    }
  }

  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      fail(`must be >= ${schema.minimum}`);
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      fail(`must be <= ${schema.maximum}`);
    }
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) {
      fail(`must be > ${schema.exclusiveMinimum}`);
    }
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) {
      fail(`must be < ${schema.exclusiveMaximum}`);
    }
  }

  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      fail(`must have at least ${schema.minItems} items`);
    }
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      fail(`must have at most ${schema.maxItems} items`);
    }
    if (schema.items !== undefined && !Array.isArray(schema.items)) {
      value.forEach((item, i) =>
        errors.push(...validateJsonSchema(item, schema.items, patterns, childPath(path, i))),
      );
    }
  }

  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const has = (k: string) => Object.prototype.hasOwnProperty.call(obj, k);
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === 'string' && !has(key)) fail(`must have property "${key}"`);
      }
    }
    const properties = isSchema(schema.properties) ? schema.properties : {};
    for (const [key, sub] of Object.entries(properties)) {
      if (!has(key)) continue;
      errors.push(...validateJsonSchema(obj[key], sub, patterns, childPath(path, key)));
    }
    const extra = schema.additionalProperties;
    if (extra !== undefined && extra !== true) {
      for (const key of Object.keys(obj)) {
        if (Object.prototype.hasOwnProperty.call(properties, key)) continue;
        if (extra === false) fail(`must not have property "${key}"`);
        else errors.push(...validateJsonSchema(obj[key], extra, patterns, childPath(path, key)));
      }
    }
  }

  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf) errors.push(...validateJsonSchema(value, sub, patterns, path));
  }
  if (Array.isArray(schema.anyOf)) {
    if (!schema.anyOf.some((sub) => validateJsonSchema(value, sub, patterns, path).length === 0)) {
      fail('must match at least one schema of anyOf');
    }
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = schema.oneOf.filter(
      (sub) => validateJsonSchema(value, sub, patterns, path).length === 0,
    );
    if (matching.length !== 1) fail(`must match exactly one schema of oneOf (${matching.length})`);
  }
  if (
    schema.not !== undefined &&
    validateJsonSchema(value, schema.not, patterns, path).length === 0
  ) {
    fail('must not match the schema of not');
  }
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
  if (!isSchema(schema)) return [];
  const found: { path: string; problem: string }[] = [];
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
      found.push(...schemaPatternProblems(sub, childPath(properties, key)));
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((sub, i) => nested.push([`${keyword}[${i}]`, sub]));
  }
  for (const [keyword, sub] of nested) {
    found.push(...schemaPatternProblems(sub, `${path}.${keyword}`));
  }
  return found;
}
