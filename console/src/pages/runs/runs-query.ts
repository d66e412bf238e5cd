/**
 * The Runs page's rules, apart from its components: what the URL's query means for the list request,
 * how the UTC date-time inputs map to ISO instants, what a typed or pasted run id is, and how long a
 * run has taken. Plain functions (no DOM, no Preact) so that they are unit-tested (runs-query.spec.ts).
 */

export const RUN_STATUSES = [
  'PENDING',
  'RUNNING',
  'WAITING',
  'PAUSED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** A run's status after which nothing happens any more (unless a FAILED run is retried). */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export const PAGE_SIZE = 20;

/** The query of GET /v1/workflow-runs that the page asks for. */
export interface RunsListParams {
  page: number;
  pageSize: number;
  status?: RunStatusName;
  definitionId?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** A filter in the URL that cannot be sent as it is, with what is wrong, for the field's message. */
export interface FilterProblem {
  field: 'status' | 'createdFrom' | 'createdTo' | 'page';
  message: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The list request for the page's URL query (`page`, `status`, `definitionId`, `createdFrom`,
 * `createdTo`). A value the API would refuse is reported instead of sent, so that an edited or stale
 * link says what is wrong next to the field rather than as a failed list.
 */
export function listParams(query: Record<string, string | undefined>): {
  params: RunsListParams;
  problems: FilterProblem[];
} {
  const problems: FilterProblem[] = [];
  const params: RunsListParams = { page: 1, pageSize: PAGE_SIZE };
  if (query.page !== undefined && query.page !== '') {
    const page = Number(query.page);
    if (Number.isInteger(page) && page >= 1 && page <= 2_147_483_647) params.page = page;
    else problems.push({ field: 'page', message: 'The page must be a whole number from 1.' });
  }
  if (query.status) {
    if ((RUN_STATUSES as readonly string[]).includes(query.status)) {
      params.status = query.status as RunStatusName;
    } else {
      problems.push({ field: 'status', message: `Unknown status "${query.status}".` });
    }
  }
  if (query.definitionId) params.definitionId = query.definitionId;
  for (const field of ['createdFrom', 'createdTo'] as const) {
    const value = query[field];
    if (!value) continue;
    if (parseInstant(value) === undefined) {
      problems.push({ field, message: 'Not a date and time; use the picker (UTC).' });
    } else {
      params[field] = value;
    }
  }
  if (params.createdFrom && params.createdTo) {
    if (parseInstant(params.createdFrom)! >= parseInstant(params.createdTo)!) {
      problems.push({
        field: 'createdTo',
        message: '"Created before" must be after "Created from".',
      });
      delete params.createdTo;
    }
  }
  return { params, problems };
}

/** Whether any filter (not the page) is set. */
export function hasFilters(query: Record<string, string | undefined>): boolean {
  return ['status', 'definitionId', 'createdFrom', 'createdTo'].some((name) => !!query[name]);
}

/** Milliseconds since the epoch of an ISO 8601 instant, or undefined when it is not one. */
function parseInstant(value: string): number | undefined {
  // A bare date-time without an offset would be read in the browser's zone: the URL holds UTC only.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    return undefined;
  }
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The value of an `<input type="datetime-local">` (read as UTC: the label says so) as the ISO instant
 * the URL and the API take; '' for an empty or incomplete input.
 */
export function utcInputToIso(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return '';
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/** The other way: an ISO instant from the URL as the datetime-local input's value, in UTC. */
export function isoToUtcInput(iso: string | undefined): string {
  if (!iso) return '';
  const ms = parseInstant(iso);
  if (ms === undefined) return '';
  const text = new Date(ms).toISOString(); // 2026-11-24T17:03:05.000Z
  return text.endsWith(':00.000Z') ? text.slice(0, 16) : text.slice(0, 19);
}

/**
 * The run id in what was typed or pasted into the id search: a bare id, or any text holding one (a
 * console link, an API URL, a log line). Undefined when there is none.
 */
export function runIdFromSearch(text: string): string | undefined {
  const match = UUID.exec(text.trim());
  return match ? match[0].toLowerCase() : undefined;
}

/**
 * How long a run has taken: until its last change once it is over, until `now` while it goes on
 * (`ongoing` says which, for "so far").
 */
export function runDuration(
  run: { status: string; createdAt: string; updatedAt: string },
  now: number,
): { ms: number; ongoing: boolean } {
  const start = Date.parse(run.createdAt);
  if (TERMINAL_STATUSES.has(run.status)) {
    return { ms: Math.max(0, Date.parse(run.updatedAt) - start), ongoing: false };
  }
  return { ms: Math.max(0, now - start), ongoing: true };
}

/** `name@version` for a definition, as the filter and the table show it. */
export function definitionLabel(definition: { name: string; version: string }): string {
  return `${definition.name}@${definition.version}`;
}

/** Definitions for the filter's options: by name, then by version (numeric parts as numbers). */
export function sortDefinitions<T extends { name: string; version: string }>(
  definitions: T[],
): T[] {
  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  return [...definitions].sort(
    (a, b) => collator.compare(a.name, b.name) || collator.compare(a.version, b.version),
  );
}
