import { getMetadataStorage, type MetadataStorage } from 'class-validator';

const MEMOIZED = Symbol('validation-metadata:memoized');

type Lookup = MetadataStorage['getTargetValidationMetadatas'];
type Grouping = MetadataStorage['groupByPropertyName'];
type ValidationMetadata = ReturnType<Lookup>[number];

/**
 * Makes class-validator look a class's rules up once rather than on every validation.
 *
 * `getTargetValidationMetadatas` scans every class that has rules, with an `instanceof` test each, to
 * find the rules a class inherits (typestack/class-validator#2686, open), and `groupByPropertyName`
 * then sorts them by property: per request, 2.5% of the service's CPU under `GET /v1/workflow-runs`
 * (bench/README.md). Rules are registered as classes are defined, so the answer for a class and a set
 * of options is kept, and all answers are dropped whenever a rule or a constraint is added (a class
 * defined later, the copies PartialType and its kin make). The answers are shared: their readers
 * (class-validator's ValidationExecutor, Nest's ValidationPipe and mapped types, validation.ts) only
 * read them. They are not frozen: V8 iterates frozen arrays on a slow path, which made a validation
 * cost more than without any of this (measured: 7.8 us per run list query, 5.5 memoized, 13.5 frozen).
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;

  let answers = new WeakMap<object, Map<string, ValidationMetadata[]>>();
  /** The answers handed out: groupByPropertyName's answers are kept for those only. */
  const kept = new WeakSet<ValidationMetadata[]>();
  const grouped = new WeakMap<ValidationMetadata[], ReturnType<Grouping>>();
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group: Grouping = storage.groupByPropertyName.bind(storage);

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = answers.get(target);
    if (byOptions === undefined) {
      byOptions = new Map();
      answers.set(target, byOptions);
    }
    let found = byOptions.get(key);
    if (found === undefined) {
      found = lookup(target, schema, always, strictGroups, groups);
      byOptions.set(key, found);
      kept.add(found);
    }
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    if (!kept.has(metadata)) return group(metadata);
    let byProperty = grouped.get(metadata);
    if (byProperty === undefined) {
      byProperty = group(metadata);
      grouped.set(metadata, byProperty);
    }
    return byProperty;
  };
  const forgetting = <A extends unknown[]>(add: (...args: A) => void) => {
    const original = add.bind(storage);
    return (...args: A): void => {
      answers = new WeakMap();
      original(...args);
    };
  };
  storage.addValidationMetadata = forgetting(storage.addValidationMetadata);
  storage.addConstraintMetadata = forgetting(storage.addConstraintMetadata);
  storage.addValidationSchema = forgetting(storage.addValidationSchema);
}
