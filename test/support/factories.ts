import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type {
  CreateApiKeyRequest,
  CreatedApiKey,
  CreateWorkspaceRequest,
  Envelope,
  Scope,
  Workspace,
} from '../../client';

export interface WorkspaceWithKey {
  workspace: Workspace;
  key: string;
  keyId: string;
}

export function uniqueSlug(prefix = 'ws'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * A workspace and its first key, through the public API. Pass `adminToken` when the app under test has
 * ADMIN_TOKEN configured.
 */
export async function createWorkspaceWithKey(
  http: TestAgent,
  options: { adminToken?: string; name?: string } = {},
): Promise<WorkspaceWithKey> {
  const headers: Record<string, string> = options.adminToken
    ? { 'x-admin-token': options.adminToken }
    : {};
  const slug = uniqueSlug();
  const workspaceBody: CreateWorkspaceRequest = { name: options.name ?? `Workspace ${slug}`, slug };
  const ws = await http.post('/v1/workspaces').set(headers).send(workspaceBody);
  if (ws.status !== 201) throw new Error(`workspace creation failed: ${ws.status} ${ws.text}`);
  const workspace = (ws.body as Envelope<Workspace>).data;
  const keyBody: CreateApiKeyRequest = { name: 'first key', workspaceId: workspace.id };
  const key = await http.post('/v1/api-keys').set(headers).send(keyBody);
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${key.text}`);
  const created = (key.body as Envelope<CreatedApiKey>).data;
  return { workspace, key: created.key, keyId: created.id };
}

/** A further key of the caller's workspace with these scopes (README "Scopes"), through the API. */
export async function createScopedKey(
  http: TestAgent,
  callerKey: string,
  scopes: readonly string[],
  name = `scoped ${scopes.join(' ')}`.slice(0, 100),
): Promise<{ id: string; key: string }> {
  const body: CreateApiKeyRequest = { name, scopes: [...scopes] as Scope[] };
  const res = await http.post('/v1/api-keys').set('x-api-key', callerKey).send(body);
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  const created = (res.body as Envelope<CreatedApiKey>).data;
  return { id: created.id, key: created.key };
}
