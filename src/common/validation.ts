// class-transformer's @Type reads design-time types through the Reflect metadata API.
import 'reflect-metadata';
import type {
  ArgumentMetadata,
  PipeTransform,
  ValidationError as ClassValidatorError,
} from '@nestjs/common';
import { plainToInstance, Type } from 'class-transformer';
import {
  getMetadataStorage,
  ValidateBy,
  ValidateNested,
  validateSync,
  type ValidationOptions,
} from 'class-validator';
import { FieldError, ValidationError } from './errors';
import { memoizeValidationMetadata } from './validation-metadata';

memoizeValidationMetadata();

/** Flattens class-validator's tree into `[{field, message}]` with paths like `steps[2].handler`. */
export function flattenValidationErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const err of errors) {
    const field = /^\d+$/.test(err.property)
      ? `${parent}[${err.property}]`
      : parent
        ? `${parent}.${err.property}`
        : err.property;
    for (const [rule, message] of Object.entries(err.constraints ?? {})) {
      out.push({ field, message: rule === 'whitelistValidation' ? 'is not allowed' : message });
    }
    if (err.children?.length) out.push(...flattenValidationErrors(err.children, field));
  }
  return out;
}

type DtoClass = new () => object;

const AS_GIVEN = Symbol('validation:as-given');
const NESTED = Symbol('validation:nested');

function ownMetadata<T>(key: symbol, target: object): Map<string, T> {
  // Own map per class, seeded with the parent's, so subclasses inherit their parent's fields.
  if (!Object.prototype.hasOwnProperty.call(target, key)) {
    const inherited = (target as Record<symbol, Map<string, T> | undefined>)[key];
    Object.defineProperty(target, key, { value: new Map(inherited ?? []), enumerable: false });
  }
  return (target as Record<symbol, Map<string, T>>)[key];
}

/** What AsGiven() or Nested() recorded for a class and its parents. */
function metadataOf<T>(key: symbol, cls: DtoClass): Map<string, T> | undefined {
  return (cls.prototype as Record<symbol, Map<string, T> | undefined>)[key];
}

/**
 * The property is taken exactly as the client sent it: class-transformer never copies it. For open
 * objects (run input, task config, payloads) whose keys are data: class-transformer skips keys named
 * `__proto__` or `constructor`, drops any key that names a method of Object.prototype (`toString`,
 * `hasOwnProperty`...) and throws on an object whose `constructor` is not a function. Also for values
 * checked elsewhere (a definition's steps, validated per type by validateSteps).
 */
export function AsGiven(): PropertyDecorator {
  return (target: object, property: string | symbol) => {
    ownMetadata<true>(AS_GIVEN, target).set(String(property), true);
  };
}

/**
 * No two equal items in an array of strings or numbers, checked with a Set in one pass: class-validator's
 * ArrayUnique compares every pair, so a body-sized array of distinct values (60,000 of them) would hold
 * the event loop for seconds. Values that are not arrays pass (IsArray reports them).
 */
export function UniqueItems(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'uniqueItems',
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || new Set(value).size === value.length,
        defaultMessage: () => '$property must not contain duplicates',
      },
    },
    options,
  );
}

/** A nested DTO (or array of them): transformed to `cls`, validated, closed like its parent. */
export function Nested(cls: () => DtoClass, options?: { each?: boolean }): PropertyDecorator {
  return (target: object, property: string | symbol) => {
    Type(cls)(target, property);
    ValidateNested({ each: options?.each })(target, property);
    ownMetadata<() => DtoClass>(NESTED, target).set(String(property), cls);
  };
}

/**
 * Keys that class-transformer skips or cannot copy onto an instance: they would vanish from a closed
 * schema instead of being refused as unknown, so they are refused here by name (`__proto__`,
 * `constructor`, Object.prototype's methods; `prototype` for good measure).
 */
const SHADOWED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

const knownProperties = new WeakMap<object, Set<string>>();

function propertiesOf(cls: DtoClass): Set<string> {
  let known = knownProperties.get(cls);
  if (!known) {
    const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
    known = new Set(metas.map((m) => m.propertyName));
    knownProperties.set(cls, known);
  }
  return known;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The copy of `raw` that class-transformer may see: shadowed keys left out (and reported as not
 * allowed), `@AsGiven` values left out (put back by restore()), nested DTOs prepared alike.
 */
function prepare(
  cls: DtoClass,
  raw: Record<string, unknown>,
  path: string,
  errors: FieldError[],
): Record<string, unknown> {
  const known = propertiesOf(cls);
  const asGiven = metadataOf<true>(AS_GIVEN, cls);
  const nested = metadataOf<() => DtoClass>(NESTED, cls);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      if (SHADOWED_KEYS.has(key))
        errors.push({ field: join(path, key), message: 'is not allowed' });
      // Refused whatever its value: class-transformer must not walk into it (see passesThrough).
      else copy[key] = true;
      continue;
    }
    if (asGiven?.has(key)) continue;
    const value = raw[key];
    const inner = nested?.get(key)?.();
    if (inner && isPlainObject(value)) {
      copy[key] = prepare(inner, value, join(path, key), errors);
    } else if (inner && Array.isArray(value)) {
      copy[key] = value.map((item: unknown, i) =>
        isPlainObject(item)
          ? prepare(inner, item, `${join(path, key)}[${i}]`, errors)
          : passesThrough(item)
            ? null
            : item,
      );
    } else if (!passesThrough(value)) {
      copy[key] = value;
    }
  }
  return copy;
}

/**
 * A value class-transformer must not copy: it walks objects and arrays, and throws on an object whose
 * `constructor` key is not a function (`{"name": {"constructor": 1}}` in any field). Such a value of a
 * plain field is put back as given by restore() and refused by the field's own rules.
 */
function passesThrough(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Puts the `@AsGiven` values of `raw` back onto the instance built from prepare()'s copy. */
function restore(cls: DtoClass, raw: Record<string, unknown>, dto: Record<string, unknown>): void {
  const known = propertiesOf(cls);
  const asGiven = metadataOf<true>(AS_GIVEN, cls);
  const nested = metadataOf<() => DtoClass>(NESTED, cls);
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) continue;
    if (asGiven?.has(key) || (!nested?.has(key) && passesThrough(raw[key]))) dto[key] = raw[key];
  }
  for (const [key, inner] of nested ?? []) {
    const value = raw[key];
    const built = dto[key];
    if (isPlainObject(value) && isPlainObject(built)) restore(inner(), value, built);
    if (Array.isArray(value) && Array.isArray(built)) {
      value.forEach((item: unknown, i) => {
        const b: unknown = built[i];
        if (isPlainObject(item) && isPlainObject(b)) restore(inner(), item, b);
      });
    }
  }
}

/**
 * Builds and validates a DTO from a plain JSON object: unknown fields are "is not allowed" (also those
 * class-transformer would silently skip), no implicit type conversion, `@AsGiven` values kept exactly
 * as given. Field paths start at `path` (`steps[2].handler`).
 */
export function validateDto<T extends object>(
  cls: new () => T,
  raw: Record<string, unknown>,
  path = '',
): { dto: T; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const dto = plainToInstance(cls, prepare(cls, raw, path, errors), {
    enableImplicitConversion: false,
  });
  restore(cls, raw, dto as Record<string, unknown>);
  const result = validateSync(dto, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: false },
  });
  errors.push(...flattenValidationErrors(result, path));
  return { dto, errors };
}

/**
 * The global pipe for `@Body()` and `@Query()` DTOs: unknown fields rejected, payloads transformed to
 * DTO classes, errors in the envelope. The request's own object is never modified (Nest's
 * ValidationPipe deletes `__proto__` keys from it, so they vanished from open data).
 */
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const cls = metadata.metatype as DtoClass | undefined;
    if ((metadata.type !== 'body' && metadata.type !== 'query') || !isDtoClass(cls)) return value;
    if (!isPlainObject(value)) {
      throw ValidationError.field(metadata.type, 'must be a JSON object');
    }
    const { dto, errors } = validateDto(cls, value);
    if (errors.length > 0) throw new ValidationError(errors);
    return dto;
  }
}

function isDtoClass(cls: unknown): cls is DtoClass {
  return typeof cls === 'function' && propertiesOf(cls as DtoClass).size > 0;
}

export function createValidationPipe(): DtoValidationPipe {
  return new DtoValidationPipe();
}
