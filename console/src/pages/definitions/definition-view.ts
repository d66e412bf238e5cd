/**
 * What the Definitions pages show, worked out from the API's definitions: versions grouped by name, and
 * for each step its main fields and where it can jump to (design §4).
 */

export interface DefinitionLike {
  id: string;
  name: string;
  version: string;
  description: string | null;
  createdAt: string;
  steps: { type: string; name: string; [field: string]: unknown }[];
}

export interface DefinitionGroup<D extends DefinitionLike> {
  name: string;
  /** Newest first. */
  versions: D[];
}

/**
 * One group per name, its versions newest first; the group whose newest version is newest comes first.
 * `filter` keeps the groups whose name contains it (case-insensitive).
 */
export function groupByName<D extends DefinitionLike>(
  definitions: D[],
  filter = '',
): DefinitionGroup<D>[] {
  const needle = filter.trim().toLowerCase();
  const groups = new Map<string, D[]>();
  for (const definition of definitions) {
    if (needle && !definition.name.toLowerCase().includes(needle)) continue;
    const list = groups.get(definition.name) ?? [];
    list.push(definition);
    groups.set(definition.name, list);
  }
  const newestFirst = (a: D, b: D) =>
    Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.version.localeCompare(a.version);
  return [...groups.entries()]
    .map(([name, versions]) => ({ name, versions: versions.sort(newestFirst) }))
    .sort((a, b) => newestFirst(a.versions[0], b.versions[0]));
}

/** A step's field worth showing in the step list, as text. */
export interface StepField {
  label: string;
  value: string;
}

/** Where a step can go next: a step of the definition (by index) or the end of the run. */
export interface StepJump {
  label: string;
  /** The index of the target step; undefined when the target is the run's end or unknown. */
  targetIndex?: number;
  targetName: string;
  /** True when the step does not name it and the default applies (e.g. "the next step"). */
  isDefault: boolean;
}

export interface StepView {
  index: number;
  type: string;
  name: string;
  fields: StepField[];
  jumps: StepJump[];
}

/** The fields shown per type, in this order (the full step is in the JSON viewer below). */
const MAIN_FIELDS: Record<string, string[]> = {
  task: ['handler'],
  llm: ['model', 'fallbackModels', 'responseFormat', 'temperature', 'maxTokens'],
  approval: ['contentKey', 'prompt'],
  external_event: ['signalType'],
  wait: ['durationMs', 'until'],
  condition: ['expression'],
  map: ['items', 'maxConcurrency', 'toleratedFailures'],
  workflow: ['definitionId', 'definitionName', 'definitionVersion', 'waitForCompletion'],
};
const COMMON_FIELDS = ['outputKey', 'timeoutMs'];

/** An approval's rejection goes back only while its retry policy has attempts left, else the run fails. */
const REJECTION = 'on rejection (attempts left)';

function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return JSON.stringify(value);
}

function stepFields(step: DefinitionLike['steps'][number]): StepField[] {
  const names = [...(MAIN_FIELDS[step.type] ?? []), ...COMMON_FIELDS];
  const fields: StepField[] = [];
  for (const name of names) {
    const value = asText(step[name]);
    if (value !== undefined) fields.push({ label: name, value });
  }
  if (step.type === 'wait' && step.durationMs === undefined && step.until === undefined) {
    fields.push({ label: 'waits', value: 'until resumed' });
  }
  const retry = step.retry as { maxAttempts?: unknown } | undefined;
  const maxAttempts = retry && typeof retry === 'object' ? asText(retry.maxAttempts) : undefined;
  if (maxAttempts !== undefined) fields.push({ label: 'retry.maxAttempts', value: maxAttempts });
  return fields;
}

/** The steps in order, each with its fields and its jumps resolved to the target step. */
export function describeSteps(steps: DefinitionLike['steps']): StepView[] {
  const indexByName = new Map(steps.map((s, i) => [s.name, i]));
  const jumpTo = (label: string, target: unknown, fallback: number | undefined): StepJump => {
    if (typeof target === 'string') {
      const index = indexByName.get(target);
      return { label, targetIndex: index, targetName: target, isDefault: false };
    }
    if (fallback === undefined || fallback < 0 || fallback >= steps.length) {
      return { label, targetName: 'end of the run', isDefault: true };
    }
    return { label, targetIndex: fallback, targetName: steps[fallback].name, isDefault: true };
  };
  return steps.map((step, index) => {
    const jumps: StepJump[] = [];
    if (step.type === 'condition') {
      jumps.push(jumpTo('then', step.then, index + 1));
      jumps.push(jumpTo('else', step.else, index + 1));
    } else if (step.type === 'approval') {
      // A rejection with attempts left goes back to regenerateFrom, by default the step before.
      jumps.push(
        step.regenerateFrom === undefined && index === 0
          ? { label: REJECTION, targetIndex: 0, targetName: step.name, isDefault: true }
          : jumpTo(REJECTION, step.regenerateFrom, index - 1),
      );
    }
    return { index, type: step.type, name: step.name, fields: stepFields(step), jumps };
  });
}

/** The id of a step's element on the page (by position: names are free text). */
export function stepAnchor(index: number): string {
  return `step-${index + 1}`;
}
