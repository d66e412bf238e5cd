import { createTestApp, type TestApp } from './support/app';
import { createWorkspaceWithKey } from './support/factories';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a workspace and key and reads the current workspace', async () => {
    const { workspace, key } = await createWorkspaceWithKey(t.http);
    const res = await t.http.get('/v1/workspaces/current').set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: workspace.id }),
    });
  });
});
