import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type {
  CreateApiKeyRequest,
  CreatedApiKey,
  CreateWorkspaceRequest,
  Envelope,
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
