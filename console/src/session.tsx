import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import type { components } from '../../client';
import { api, unwrap } from './api';
import { can, type Scope } from './scopes';

export type Session = components['schemas']['SessionDto'];

/** The signed-in session (workspace, key, reviewer name); only rendered inside a session. */
const SessionContext = createContext<Session | undefined>(undefined);

export function SessionProvider(props: { session: Session; children: ComponentChildren }) {
  return <SessionContext.Provider value={props.session}>{props.children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether the signed-in key holds `scope` (README "Scopes"): what the pages offer follows it. */
export function useCan(scope: Scope): boolean {
  return can(useSession().scopes, scope);
}

/** The current session, or undefined when there is none (no cookie, expired, key revoked). */
export async function loadSession(): Promise<Session | undefined> {
  const result = await api.GET('/v1/console/session');
  if (result.response.status === 401) return undefined;
  return unwrap(Promise.resolve(result));
}

export function signIn(apiKey: string, reviewerName: string): Promise<Session> {
  return unwrap(api.POST('/v1/console/session', { body: { apiKey, reviewerName } }));
}

export async function signOut(): Promise<void> {
  await unwrap(api.DELETE('/v1/console/session'));
}

/**
 * Where sign-in sends the user back to: only a path of the console itself, never another site;
 * otherwise `fallback` (the first page the key can read).
 */
export function safeNext(next: string | undefined, fallback: string): string {
  if (next && next.startsWith('/console/') && !next.startsWith('/console/sign-in')) return next;
  return fallback;
}
