/**
 * What an API key may do (design §11, README "Scopes"). The order here is the order in which scopes
 * are stored and answered everywhere (key answers, the key list, the console session), whatever order
 * a client sent them in: resources as the README lists them, read before write.
 */
export const SCOPES = [
  'definitions:read',
  'definitions:write',
  'runs:read',
  'runs:write',
  'approvals:read',
  'approvals:decide',
  'costs:read',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
  'schedules:read',
  'schedules:write',
] as const;

export type Scope = (typeof SCOPES)[number];

const KNOWN: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && KNOWN.has(value);
}

/**
 * What is wrong with a list of scopes a client sent (undefined when nothing): an array of at least one
 * known scope, each once. One pass, stopping at the first problem, whatever the array's length.
 */
export function scopeListProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'scopes must be an array of scopes';
  if (value.length === 0) return 'scopes must contain at least one scope';
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!isScope(item)) return `scopes[${i}] must be one of ${SCOPES.join(', ')}`;
    if (seen.has(item)) return `scopes must not contain duplicates (${item} is given twice)`;
    seen.add(item);
  }
  return undefined;
}

/** The scopes given, in the canonical order of SCOPES, each once. */
export function sortScopes(scopes: Iterable<Scope>): Scope[] {
  const given = new Set(scopes);
  return SCOPES.filter((scope) => given.has(scope));
}

/** The first scope of `wanted` (in canonical order) that `held` lacks, or undefined. */
export function firstMissingScope(
  wanted: Iterable<Scope>,
  held: readonly Scope[],
): Scope | undefined {
  return sortScopes(wanted).find((scope) => !held.includes(scope));
}

/** The message of the 403 FORBIDDEN a key gets outside its scopes. */
export function lacksScopeMessage(scope: Scope): string {
  return `API key lacks scope ${scope}`;
}
