import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';

export interface WorkspaceWithKey {
  workspace: { id: string; name: string; slug: string };
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
  const ws = await http
    .post('/v1/workspaces')
    .set(headers)
    .send({ name: options.name ?? `Workspace ${slug}`, slug });
  if (ws.status !== 201) throw new Error(`workspace creation failed: ${ws.status} ${ws.text}`);
  const key = await http
    .post('/v1/api-keys')
    .set(headers)
    .send({ name: 'first key', workspaceId: ws.body.data.id });
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${key.text}`);
  return { workspace: ws.body.data, key: key.body.data.key, keyId: key.body.data.id };
}
