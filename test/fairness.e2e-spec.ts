import { Module } from '@nestjs/common';
import { checkedAgent } from './support/openapi-check';
import type TestAgent from 'supertest/lib/agent';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import {
  freePort,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { createDefinition, eventually, startRun, type Step } from './support/workflows';

/**
 * Holds every step of `test.gate` until the test lets it through, and counts, per workspace, the steps
 * inside the handler at once: what a workspace really runs in parallel, measured where it runs.
 */
class Gate {
  private opened = false;
  private readonly held: Array<{ workspaceId: string; release: () => void }> = [];
  private readonly inside = new Map<string, number>();
  private readonly peaks = new Map<string, number>();

  async pass(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    const now = (this.inside.get(ctx.workspaceId) ?? 0) + 1;
    this.inside.set(ctx.workspaceId, now);
    this.peaks.set(ctx.workspaceId, Math.max(now, this.peaks.get(ctx.workspaceId) ?? 0));
    try {
      if (!this.opened) {
        await new Promise<void>((resolve, reject) => {
          const entry = { workspaceId: ctx.workspaceId, release: resolve };
          this.held.push(entry);
          ctx.signal.addEventListener(
            'abort',
            () => {
              this.held.splice(this.held.indexOf(entry), 1);
              reject(new Error('aborted'));
            },
            { once: true },
          );
        });
      }
      return { passed: true };
    } finally {
      this.inside.set(ctx.workspaceId, (this.inside.get(ctx.workspaceId) ?? 1) - 1);
    }
  }

  /** Steps of the workspace inside the handler now. */
  running(workspaceId: string): number {
    return this.inside.get(workspaceId) ?? 0;
  }

  /** The most steps of the workspace that were inside the handler at once. */
  peak(workspaceId: string): number {
    return this.peaks.get(workspaceId) ?? 0;
  }

  /** Lets the oldest held step of the workspace finish; false when none is held. */
  releaseOne(workspaceId: string): boolean {
    const i = this.held.findIndex((h) => h.workspaceId === workspaceId);
    if (i < 0) return false;
    this.held.splice(i, 1)[0].release();
    return true;
  }

  /** Every held step, and every later one, passes at once. */
  open(): void {
    this.opened = true;
    for (const h of this.held.splice(0)) h.release();
  }

  close(): void {
    this.opened = false;
  }
}

const gate = new Gate();

@TaskHandler('test.gate')
class GateHandler {
  handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    return gate.pass(ctx);
  }
}

@Module({ providers: [GateHandler] })
class FairnessHandlersModule {}

const GATE_STEP = (name: string): Step => ({ type: 'task', name, handler: 'test.gate' });
const SLOTS = 4;

async function startRuns(http: TestAgent, key: string, def: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await startRun(http, key, def, { i }));
  return ids;
}

async function statusCounts(t: TestApp, runIds: string[]): Promise<Record<string, number>> {
  const rows = await t.sql<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM workflow_runs WHERE id = ANY ($1::uuid[]) GROUP BY status`,
    [runIds],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function allCompleted(t: TestApp, runIds: string[], within: number, what: string) {
  await eventually(
    async () => (await statusCounts(t, runIds)).COMPLETED === runIds.length,
    within,
    what,
  );
}

describe('fair sharing of the executor across workspaces', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      { EXECUTOR_CONCURRENCY: String(SLOTS) },
      { imports: [FairnessHandlersModule] },
    );
  });

  afterEach(() => {
    gate.open();
  });

  afterAll(async () => {
    gate.open();
    await t.close();
  });

  beforeEach(() => gate.close());

  it('lets a lone workspace use every slot', async () => {
    const a = await createWorkspaceWithKey(t.http);
    const def = await createDefinition(t.http, a.key, [GATE_STEP('slow')]);
    const runs = await startRuns(t.http, a.key, def, SLOTS * 3);
    await eventually(
      async () => gate.running(a.workspace.id) === SLOTS,
      20_000,
      `${SLOTS} steps of the lone workspace running at once`,
    );
    gate.open();
    await allCompleted(t, runs, 30_000, 'the lone workspace to finish');
    expect(gate.peak(a.workspace.id)).toBe(SLOTS);
  });

  it.each<[string, Step[], number]>([
    ['one-step runs', [GATE_STEP('slow')], 24],
    [
      'three-step runs (a run gives its slot back between steps)',
      ['a', 'b', 'c'].map(GATE_STEP),
      16,
    ],
  ])(
    "runs another workspace's first steps before the backlog of one that holds every slot: %s",
    async (_label, slowSteps, backlog) => {
      const a = await createWorkspaceWithKey(t.http);
      const b = await createWorkspaceWithKey(t.http);
      const slow = await createDefinition(t.http, a.key, slowSteps);
      const quick = await createDefinition(t.http, b.key, [
        { type: 'task', name: 'only', handler: 'noop' },
      ]);
      const aRuns = await startRuns(t.http, a.key, slow, backlog);
      await eventually(
        async () => gate.running(a.workspace.id) === SLOTS,
        20_000,
        "workspace A's steps to hold every slot",
      );

      const startedAt = Date.now();
      const bRuns = await startRuns(t.http, b.key, quick, 3);
      // A's steps finish one at a time, each only once all slots are busy again: B needs a freed slot.
      let released = 0;
      await eventually(
        async () => {
          if ((await statusCounts(t, bRuns)).COMPLETED === bRuns.length) return true;
          if (gate.running(a.workspace.id) === SLOTS && gate.releaseOne(a.workspace.id)) {
            released += 1;
          }
          return undefined;
        },
        30_000,
        "workspace B's runs to complete",
      );
      const latencyMs = Date.now() - startedAt;

      // First in first out, B would have waited for A's whole backlog (one release per A step); here
      // a slot freed goes to B (at most a few releases pass while the executor learns B waits).
      expect(released).toBeLessThanOrEqual(6);
      const aStatus = await statusCounts(t, aRuns);
      expect(aStatus.COMPLETED ?? 0).toBeLessThanOrEqual(released);
      expect(aStatus.PENDING ?? 0).toBeGreaterThanOrEqual(backlog - SLOTS - released);
      expect(latencyMs).toBeLessThan(10_000);

      gate.open();
      await allCompleted(t, aRuns, 60_000, "workspace A's backlog to finish");
    },
  );
});

describe('WORKSPACE_MAX_CONCURRENT_STEPS', () => {
  it.each([1, 3])(
    'never runs more than %i steps of one workspace at once, and leaves the other slots to others',
    async (limit) => {
      const t = await createTestApp(
        { EXECUTOR_CONCURRENCY: String(SLOTS), WORKSPACE_MAX_CONCURRENT_STEPS: String(limit) },
        { databaseUrl: await createTestDatabase(), imports: [FairnessHandlersModule] },
      );
      try {
        gate.close();
        const a = await createWorkspaceWithKey(t.http);
        const b = await createWorkspaceWithKey(t.http);
        const aDef = await createDefinition(t.http, a.key, [GATE_STEP('x'), GATE_STEP('y')]);
        const bDef = await createDefinition(t.http, b.key, [GATE_STEP('x')]);
        const aRuns = await startRuns(t.http, a.key, aDef, 10);
        // Alone, A stops at its limit although slots are free and its backlog is due.
        await eventually(
          async () => gate.running(a.workspace.id) === limit,
          20_000,
          `${limit} steps of A running`,
        );
        const claimedOfA = async () =>
          (
            await t.sql<{ n: string }>(
              `SELECT count(*) AS n FROM step_runs WHERE run_id = ANY ($1::uuid[]) AND status = 'RUNNING'`,
              [aRuns],
            )
          )[0].n;
        expect(Number(await claimedOfA())).toBe(limit);
        // The free slots serve B at once (up to its own limit), without any of A's steps finishing.
        const bRuns = await startRuns(t.http, b.key, bDef, 6);
        const bShare = Math.min(limit, SLOTS - limit);
        await eventually(
          async () => gate.running(b.workspace.id) === bShare,
          20_000,
          `${bShare} steps of B running beside A's`,
        );
        // Steps now finish one at a time while both backlogs wait: the limit holds throughout.
        for (let i = 0; i < 4; i++) {
          gate.releaseOne(i % 2 ? b.workspace.id : a.workspace.id);
          await eventually(
            async () =>
              gate.running(a.workspace.id) + gate.running(b.workspace.id) === limit + bShare,
            20_000,
            'the slots the limits allow busy again',
          );
          expect(gate.running(a.workspace.id)).toBeLessThanOrEqual(limit);
        }
        gate.open();
        await allCompleted(t, [...aRuns, ...bRuns], 60_000, 'both workspaces to finish');
        expect(gate.peak(a.workspace.id)).toBe(limit);
        expect(gate.peak(b.workspace.id)).toBeLessThanOrEqual(limit);
      } finally {
        gate.open();
        await t.close();
      }
    },
  );
});

describe('fair sharing of the webhook sender', () => {
  let receiver: HttpsReceiver;
  const services: ServiceProcess[] = [];
  let hookCounter = 0;

  /** A service process (deliveries need NODE_EXTRA_CA_CERTS at start) on its own database. */
  async function launch(env: Record<string, string>): Promise<TestAgent> {
    const port = await freePort();
    const svc = startService({
      env: {
        PORT: String(port),
        DATABASE_URL: await createTestDatabase(),
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '200',
        EXECUTOR_CONCURRENCY: '4',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ...env,
      },
    });
    services.push(svc);
    await waitUntilReady(svc, 30_000);
    return checkedAgent(svc.baseUrl);
  }

  /** A webhook of the workspace on a route of the receiver that hangs or answers 200. */
  async function hook(http: TestAgent, ws: WorkspaceWithKey, hangs: boolean): Promise<string> {
    const path = `/${hangs ? 'hang' : 'ok'}-${++hookCounter}`;
    const url = receiver.route(path, () => (hangs ? 'hang' : { status: 200 }));
    const res = await http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ url, events: ['workflow.completed'] });
    if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
    return path;
  }

  /** `runs` one-step runs of the workspace, each completion queueing one delivery per webhook. */
  async function complete(http: TestAgent, ws: WorkspaceWithKey, runs: number): Promise<void> {
    const def = await createDefinition(http, ws.key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    await startRuns(http, ws.key, def, runs);
  }

  async function deliveryCounts(http: TestAgent, ws: WorkspaceWithKey, hookPath: string) {
    const hooks = await http.get('/v1/webhooks').set('x-api-key', ws.key);
    const id = (hooks.body.data as Array<{ id: string; url: string }>).find((h) =>
      h.url.endsWith(hookPath),
    )!.id;
    const res = await http
      .get(`/v1/webhooks/${id}/deliveries?pageSize=100`)
      .set('x-api-key', ws.key);
    return res.body.data as Array<{ status: string; attempts: number }>;
  }

  const received = (paths: string[]) => paths.reduce((n, p) => n + receiver.received(p).length, 0);

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    for (const s of services) s.kill();
    await receiver.close();
  });

  it.each<[string, Record<string, string>, number, number]>([
    ['the default cap (4), two hanging endpoints', {}, 4, 2],
    ['a cap of 2, three hanging endpoints', { WEBHOOK_ENDPOINT_CONCURRENCY: '2' }, 2, 3],
    ['a cap of 1, five hanging endpoints', { WEBHOOK_ENDPOINT_CONCURRENCY: '1' }, 1, 5],
  ])(
    "keeps an endpoint that hangs within its cap and delivers another workspace's events: %s",
    async (_label, env, cap, hanging) => {
      // Hanging attempts never time out during the test: only the cap frees the sender's slots.
      const http = await launch({ ...env, WEBHOOK_TIMEOUT_MS: '120000' });
      const a = await createWorkspaceWithKey(http);
      const b = await createWorkspaceWithKey(http);
      const hangs: string[] = [];
      for (let i = 0; i < hanging; i++) hangs.push(await hook(http, a, true));
      const ok = await hook(http, b, false);
      const perHook = 8;
      await complete(http, a, perHook);
      await eventually(
        async () => received(hangs) === hanging * cap,
        20_000,
        `${hanging * cap} attempts hanging at A's endpoints`,
      );

      const startedAt = Date.now();
      await complete(http, b, 3);
      await eventually(
        async () => receiver.received(ok).length === 3,
        15_000,
        "B's deliveries to arrive",
      );
      expect(Date.now() - startedAt).toBeLessThan(10_000);

      for (const path of hangs) {
        expect(receiver.peakOpen(path)).toBe(cap);
        expect(receiver.received(path)).toHaveLength(cap);
        // The rest wait in the table, due, with no attempt counted and nothing failed.
        const rows = await deliveryCounts(http, a, path);
        expect(rows).toHaveLength(perHook);
        expect(rows.filter((r) => r.status === 'pending' && r.attempts === 0)).toHaveLength(
          perHook - cap,
        );
        expect(rows.filter((r) => r.status !== 'pending')).toHaveLength(0);
      }
    },
  );

  it("sends another workspace's delivery before a backlog queued earlier, once slots free", async () => {
    // Four endpoints of A, at the default cap of 4, take all 16 slots until their attempts time out.
    const http = await launch({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_DELAYS_MS: '0,600000' });
    const a = await createWorkspaceWithKey(http);
    const b = await createWorkspaceWithKey(http);
    const hangs: string[] = [];
    for (let i = 0; i < 4; i++) hangs.push(await hook(http, a, true));
    const ok = await hook(http, b, false);
    await complete(http, a, 12);
    await eventually(
      async () => received(hangs) === 16,
      20_000,
      "A's attempts to fill the sender's 16 slots",
    );
    await complete(http, b, 2);
    await eventually(async () => receiver.received(ok).length === 2, 20_000, "B's deliveries");
    // A has 48 deliveries, 32 of them queued before B's: B's go out with the next wave, not the third.
    expect(received(hangs)).toBeLessThanOrEqual(32);
  });
});
