/**
 * What the signed-in key may do (README "Scopes"): the session carries the key's scopes, and the pages
 * offer only what they allow. The service checks every call anyway; hiding what would be refused saves
 * the reviewer a button that can only fail. Pure, unit-tested in scopes.spec.ts.
 */
import type { components } from '../../client';

export type Scope = components['schemas']['SessionDto']['scopes'][number];

/** Every scope in the service's canonical order (scopes.spec.ts checks it against the service's). */
export const SCOPES: readonly Scope[] = [
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
];

/** What each scope lets a key do, in words for the API keys page. */
export const SCOPE_LABELS: Record<Scope, string> = {
  'definitions:read': 'read workflow definitions',
  'definitions:write': 'register definitions',
  'runs:read': 'read runs, their steps and events',
  'runs:write': 'start, cancel, resume and retry runs',
  'approvals:read': 'read approval requests',
  'approvals:decide': 'decide approval requests',
  'costs:read': 'read LLM costs and the budget',
  'webhooks:read': 'read webhooks and deliveries',
  'webhooks:write': 'register, delete and redeliver webhooks',
  'keys:read': 'list API keys',
  'keys:write': 'create and revoke API keys, set the LLM budget',
  'schedules:read': 'read schedules',
  'schedules:write': 'create, change and trigger schedules',
};

export function can(scopes: readonly string[], scope: Scope): boolean {
  return scopes.includes(scope);
}

/** Whether a key with `held` could create (or revoke) a key with `wanted`: it holds them all. */
export function holdsAll(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((scope) => held.includes(scope));
}

/** The console's pages, each with the scope it reads with: the navigation shows those the key can. */
export const PAGES: ReadonlyArray<{ href: string; label: string; scope: Scope }> = [
  { href: '/console/runs', label: 'Runs', scope: 'runs:read' },
  { href: '/console/approvals', label: 'Approvals', scope: 'approvals:read' },
  { href: '/console/costs', label: 'Costs', scope: 'costs:read' },
  { href: '/console/definitions', label: 'Definitions', scope: 'definitions:read' },
  { href: '/console/webhooks', label: 'Webhooks', scope: 'webhooks:read' },
  { href: '/console/api-keys', label: 'API keys', scope: 'keys:read' },
];

/** Where the console opens: the first page the key can read, or the runs page (which then says why not). */
export function homePath(scopes: readonly string[]): string {
  return PAGES.find((page) => can(scopes, page.scope))?.href ?? '/console/runs';
}

/**
 * The scope a 403 of the service names (`API key lacks scope <scope>`), or undefined for any other
 * error. Takes any error (an ApiError carries `status` and `message`).
 */
export function missingScope(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, message } = error as { status?: unknown; message?: unknown };
  if (status !== 403 || typeof message !== 'string') return undefined;
  return /^API key lacks scope (\S+)$/.exec(message)?.[1];
}
