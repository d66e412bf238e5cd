import { Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type {
  CreateScheduleRequest,
  DeletedSchedule,
  Envelope,
  Page,
  Run,
  Schedule,
} from '../client';
import { TaskHandler, type TaskHandlerContext } from '../src/handlers/task-handler';
import { jitterFor } from '../src/schedules/cron';
import { SchedulerClock } from '../src/schedules/scheduler-clock';
import { createTestApp, type TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { ISO_MS, UUID } from './support/formats';
import { parseExposition } from './support/prometheus';
import { waitFor } from './support/wait';
import { createDefinition, runEvents, startRun, waitForRun } from './support/workflows';

/** Holds its step in flight until the run is cancelled, so a run of a schedule stays RUNNING. */
@TaskHandler('test.schedule-hold')
class HoldHandler {
  handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(new Error('released')), { once: true });
    });
  }
}

@Module({ providers: [HoldHandler] })
class ScheduleTestHandlersModule {}

const ENV = {
  SCHEDULER_POLL_INTERVAL_MS: '100',
  EXECUTOR_CONCURRENCY: '8',
};
const HOUR = 3600_000;
/** Schedules due at once in the two-replica claim test, and the workspace limit of that app. */
const MANY = 40;

/** Sets a process's scheduler time to `at` (forward only, as time goes). */
function moveClock(app: TestApp, at: number): void {
  const clock = app.app.get(SchedulerClock);
  clock.shift(at - clock.now().getTime());
}

async function createSchedule(
  http: TestAgent,
  key: string,
  body: CreateScheduleRequest,
): Promise<Schedule> {
  const res = await http.post('/v1/schedules').set('x-api-key', key).send(body);
  if (res.status !== 201) throw new Error(`schedule creation failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<Schedule>).data;
}

async function getSchedule(http: TestAgent, key: string, id: string): Promise<Schedule> {
  const res = await http.get(`/v1/schedules/${id}`).set('x-api-key', key);
  if (res.status !== 200) throw new Error(`schedule read failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<Schedule>).data;
}

async function patchSchedule(
  http: TestAgent,
  key: string,
  id: string,
  body: Record<string, unknown>,
): Promise<Schedule> {
  const res = await http.patch(`/v1/schedules/${id}`).set('x-api-key', key).send(body);
  if (res.status !== 200) throw new Error(`schedule update failed: ${res.status} ${res.text}`);
  return (res.body as Envelope<Schedule>).data;
}

/** Every run the schedule started, oldest first. */
async function scheduleRuns(http: TestAgent, key: string, scheduleId: string): Promise<Run[]> {
  const all: Run[] = [];
  for (let page = 1; ; page++) {
    const res = await http
      .get(`/v1/workflow-runs?scheduleId=${scheduleId}&pageSize=100&page=${page}`)
      .set('x-api-key', key);
    if (res.status !== 200) throw new Error(`run list failed: ${res.status} ${res.text}`);
    const body = res.body as Page<Run>;
    all.push(...body.data);
    if (page >= body.meta.totalPages) return all.reverse();
  }
}

/** The fire time a scheduled run's idempotency key names (null for a triggered run). */
function fireTime(run: Run, scheduleId: string): string | null {
  if (run.idempotencyKey === null) return null;
  const prefix = `schedule:${scheduleId}:`;
  expect(run.idempotencyKey.startsWith(prefix)).toBe(true);
  return run.idempotencyKey.slice(prefix.length);
}

async function cancelAll(http: TestAgent, key: string, runs: Run[]): Promise<void> {
  for (const run of runs) {
    await http.post(`/v1/workflow-runs/${run.id}/cancel`).set('x-api-key', key);
  }
}

function expectValidation(res: { status: number; body: unknown }, field: string): void {
  expect(res.status).toBe(400);
  const body = res.body as {
    success: boolean;
    error: { code: string; details?: { errors?: Array<{ field: string }> } };
  };
  expect(body.success).toBe(false);
  expect(body.error.code).toBe('VALIDATION_ERROR');
  expect(body.error.details?.errors?.map((e) => e.field)).toContain(field);
}

describe('schedules', () => {
  /** Real clock; the second replica shares its database. */
  let t: TestApp;
  let a: WorkspaceWithKey;
  let b: WorkspaceWithKey;
  let noopDef: string;
  let holdDef: string;

  beforeAll(async () => {
    t = await createTestApp(ENV, { imports: [ScheduleTestHandlersModule] });
    a = await createWorkspaceWithKey(t.http);
    b = await createWorkspaceWithKey(t.http);
    noopDef = await createDefinition(t.http, a.key, [
      { type: 'task', name: 'work', handler: 'noop' },
    ]);
    holdDef = await createDefinition(t.http, a.key, [
      { type: 'task', name: 'hold', handler: 'test.schedule-hold', retry: { maxAttempts: 1 } },
    ]);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('API', () => {
    it('creates a schedule with the documented defaults and its next five fire times', async () => {
      const res = await t.http
        .post('/v1/schedules')
        .set('x-api-key', a.key)
        .send({ definitionId: noopDef, cron: '0 9 * * 1-5', timezone: 'europe/berlin' });
      expect(res.status).toBe(201);
      const s = (res.body as Envelope<Schedule>).data;
      expect(s).toMatchObject({
        workspaceId: a.workspace.id,
        definitionId: noopDef,
        name: null,
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Berlin',
        input: {},
        overlapPolicy: 'skip',
        catchupWindowMs: 60000,
        jitterMs: 0,
        paused: false,
        lastFiredAt: null,
        bufferedFireAt: null,
        skippedFires: 0,
      });
      expect(s.id).toMatch(UUID);
      expect(s.createdAt).toMatch(ISO_MS);
      expect(s.nextFireTimes).toHaveLength(5);
      const berlin = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
      });
      for (const at of s.nextFireTimes) {
        expect(at).toMatch(ISO_MS);
        expect(berlin.format(new Date(at))).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
      }
      const sorted = [...s.nextFireTimes].sort();
      expect(s.nextFireTimes).toEqual(sorted);
      expect(new Date(s.nextFireTimes[0]).getTime()).toBeGreaterThan(Date.now() - 1000);
    });

    it('lists schedules newest first with pagination meta, filtered by definition', async () => {
      const otherDef = await createDefinition(t.http, a.key, [
        { type: 'task', name: 'x', handler: 'noop' },
      ]);
      const first = await createSchedule(t.http, a.key, {
        definitionId: otherDef,
        cron: '0 0 * * *',
        name: 'first',
      });
      const second = await createSchedule(t.http, a.key, {
        definitionId: otherDef,
        cron: '0 1 * * *',
        name: 'second',
      });
      const res = await t.http
        .get(`/v1/schedules?definitionId=${otherDef}&pageSize=1`)
        .set('x-api-key', a.key);
      expect(res.status).toBe(200);
      const page = res.body as Page<Schedule>;
      expect(page.meta).toEqual({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
      expect(page.data.map((s) => s.id)).toEqual([second.id]);
      const all = await t.http.get('/v1/schedules?pageSize=100').set('x-api-key', a.key);
      expect((all.body as Page<Schedule>).data.map((s) => s.id)).toEqual(
        expect.arrayContaining([first.id, second.id]),
      );
      const none = await t.http
        .get('/v1/schedules?definitionId=not-a-uuid')
        .set('x-api-key', a.key);
      expect((none.body as Page<Schedule>).meta.total).toBe(0);
      const bad = await t.http.get('/v1/schedules?pageSize=101').set('x-api-key', a.key);
      expectValidation(bad, 'pageSize');
    });

    it('updates fields and recomputes the next fire times when the cron or zone changes', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: noopDef,
        cron: '0 0 1 1 *',
        input: { a: 1 },
      });
      const updated = await patchSchedule(t.http, a.key, s.id, {
        cron: '30 6 * * *',
        timezone: 'America/New_York',
        input: { b: 2 },
        overlapPolicy: 'allow',
        catchupWindowMs: 5000,
        jitterMs: 100,
        name: 'morning',
      });
      expect(updated).toMatchObject({
        cron: '30 6 * * *',
        timezone: 'America/New_York',
        input: { b: 2 },
        overlapPolicy: 'allow',
        catchupWindowMs: 5000,
        jitterMs: 100,
        name: 'morning',
      });
      const ny = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'America/New_York',
        hour: '2-digit',
        minute: '2-digit',
      });
      expect(updated.nextFireTimes.map((at) => ny.format(new Date(at)))).toEqual(
        Array(5).fill('06:30'),
      );
      expect((await getSchedule(t.http, a.key, s.id)).input).toEqual({ b: 2 });
      const paused = await patchSchedule(t.http, a.key, s.id, { paused: true });
      expect(paused.paused).toBe(true);
      expect(paused.nextFireTimes).toEqual([]);
      const resumed = await patchSchedule(t.http, a.key, s.id, { paused: false });
      expect(resumed.nextFireTimes).toEqual(updated.nextFireTimes);
    });

    it('refuses bad input with 400 naming the field, and leaves the schedule as it was', async () => {
      const post = (body: Record<string, unknown>) =>
        t.http.post('/v1/schedules').set('x-api-key', a.key).send(body);
      expectValidation(await post({ definitionId: noopDef, cron: 'every day' }), 'cron');
      expectValidation(await post({ definitionId: noopDef, cron: '61 * * * *' }), 'cron');
      expectValidation(await post({ definitionId: noopDef, cron: '* * * * * * *' }), 'cron');
      expectValidation(await post({ definitionId: noopDef, cron: '@hourly' }), 'cron');
      expectValidation(await post({ definitionId: noopDef, cron: '0 0 31 2 *' }), 'cron');
      expectValidation(await post({ definitionId: noopDef }), 'cron');
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', timezone: 'Mars/Olympus' }),
        'timezone',
      );
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', timezone: '+02:00' }),
        'timezone',
      );
      expectValidation(
        await post({ definitionId: randomUUID(), cron: '* * * * *' }),
        'definitionId',
      );
      expectValidation(await post({ definitionId: 'nope', cron: '* * * * *' }), 'definitionId');
      expectValidation(await post({ cron: '* * * * *' }), 'definitionId');
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', overlapPolicy: 'queue' }),
        'overlapPolicy',
      );
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', catchupWindowMs: -1 }),
        'catchupWindowMs',
      );
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', jitterMs: 1.5 }),
        'jitterMs',
      );
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', input: [1] }),
        'input',
      );
      expectValidation(
        await post({ definitionId: noopDef, cron: '* * * * *', surprise: true }),
        'surprise',
      );
      const s = await createSchedule(t.http, a.key, { definitionId: noopDef, cron: '0 0 * * *' });
      const patch = await t.http
        .patch(`/v1/schedules/${s.id}`)
        .set('x-api-key', a.key)
        .send({ cron: '0 0 * *' });
      expectValidation(patch, 'cron');
      const zone = await t.http
        .patch(`/v1/schedules/${s.id}`)
        .set('x-api-key', a.key)
        .send({ timezone: 'Nowhere/Land' });
      expectValidation(zone, 'timezone');
      expect(await getSchedule(t.http, a.key, s.id)).toEqual(s);
    });

    it('keeps each workspace to its own schedules and definitions', async () => {
      const s = await createSchedule(t.http, a.key, { definitionId: noopDef, cron: '0 0 * * *' });
      for (const res of [
        await t.http.get(`/v1/schedules/${s.id}`).set('x-api-key', b.key),
        await t.http.patch(`/v1/schedules/${s.id}`).set('x-api-key', b.key).send({ paused: true }),
        await t.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', b.key),
        await t.http.post(`/v1/schedules/${s.id}/trigger`).set('x-api-key', b.key),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      }
      const list = await t.http.get('/v1/schedules').set('x-api-key', b.key);
      expect((list.body as Page<Schedule>).data).toEqual([]);
      expectValidation(
        await t.http
          .post('/v1/schedules')
          .set('x-api-key', b.key)
          .send({ definitionId: noopDef, cron: '* * * * *' }),
        'definitionId',
      );
      expect((await getSchedule(t.http, a.key, s.id)).paused).toBe(false);
      const malformed = await t.http.get('/v1/schedules/not-an-id').set('x-api-key', a.key);
      expect(malformed.status).toBe(404);
    });

    it('triggers a run now, paused or not, carrying scheduleId, and answers 404 once deleted', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: noopDef,
        cron: '0 0 1 1 *',
        input: { batch: 'manual' },
        paused: true,
      });
      const res = await t.http.post(`/v1/schedules/${s.id}/trigger`).set('x-api-key', a.key);
      expect(res.status).toBe(201);
      const run = (res.body as Envelope<Run>).data;
      expect(run).toMatchObject({
        definitionId: noopDef,
        scheduleId: s.id,
        input: { batch: 'manual' },
        idempotencyKey: null,
      });
      const done = await waitForRun(t.http, a.key, run.id, 'COMPLETED');
      expect(done.scheduleId).toBe(s.id);
      expect((await runEvents(t.http, a.key, run.id)).map((e) => e.eventType)).toEqual(
        expect.arrayContaining(['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED']),
      );
      expect((await scheduleRuns(t.http, a.key, s.id)).map((r) => r.id)).toEqual([run.id]);
      // A run started through the API names no schedule.
      const plain = await startRun(t.http, a.key, noopDef);
      const plainRun = await waitForRun(t.http, a.key, plain, 'COMPLETED');
      expect(plainRun.scheduleId).toBeNull();

      const del = await t.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', a.key);
      expect(del.status).toBe(200);
      expect((del.body as Envelope<DeletedSchedule>).data).toEqual({ id: s.id, deleted: true });
      expect((await t.http.get(`/v1/schedules/${s.id}`).set('x-api-key', a.key)).status).toBe(404);
      const again = await t.http.post(`/v1/schedules/${s.id}/trigger`).set('x-api-key', a.key);
      expect(again.status).toBe(404);
      // The runs keep their schedule id.
      expect((await scheduleRuns(t.http, a.key, s.id)).map((r) => r.id)).toEqual([run.id]);
      // A malformed filter matches no run; another workspace sees none of them.
      const malformed = await t.http
        .get('/v1/workflow-runs?scheduleId=not-a-uuid')
        .set('x-api-key', a.key);
      expect((malformed.body as Page<Run>).meta.total).toBe(0);
      expect(await scheduleRuns(t.http, b.key, s.id)).toEqual([]);
    });
  });

  describe('firing', () => {
    it('starts one run per fire, each with the key of its fire time, and records lastFiredAt', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: noopDef,
        cron: '* * * * * *',
        overlapPolicy: 'allow',
        input: { nightly: true },
      });
      const runs = await waitFor('three runs of the schedule', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length >= 3 ? found : undefined;
      });
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      const fires = runs.map((r) => fireTime(r, s.id)!);
      for (const at of fires) expect(new Date(at).getUTCMilliseconds()).toBe(0);
      expect(new Set(fires).size).toBe(fires.length);
      expect(runs[0].input).toEqual({ nightly: true });
      const done = await waitForRun(t.http, a.key, runs[0].id, 'COMPLETED');
      expect(done.scheduleId).toBe(s.id);
      const events = await runEvents(t.http, a.key, runs[0].id);
      expect(events[0].eventType).toBe('WORKFLOW_STARTED');
      const metrics = parseExposition((await t.http.get('/metrics')).text);
      expect(
        metrics.value('orchestrator_schedule_fires_total', { outcome: 'started' }),
      ).toBeGreaterThanOrEqual(3);
      expect(
        metrics.value('orchestrator_schedule_fire_delay_seconds_count'),
      ).toBeGreaterThanOrEqual(3);
      const read = await getSchedule(t.http, a.key, s.id);
      expect(read.lastFiredAt).not.toBeNull();
      expect(new Date(read.lastFiredAt!).getTime()).toBeGreaterThanOrEqual(
        new Date(fires[fires.length - 1]).getTime(),
      );
    });

    it('across two replicas on one database starts exactly one run per tick', async () => {
      const replica = await createTestApp(ENV, {
        databaseUrl: t.databaseUrl,
        imports: [ScheduleTestHandlersModule],
      });
      try {
        const s = await createSchedule(t.http, a.key, {
          definitionId: noopDef,
          cron: '* * * * * *',
          overlapPolicy: 'allow',
        });
        const runs = await waitFor(
          'six runs of the schedule',
          async () => {
            const found = await scheduleRuns(t.http, a.key, s.id);
            return found.length >= 6 ? found : undefined;
          },
          { timeoutMs: 20_000 },
        );
        await patchSchedule(replica.http, a.key, s.id, { paused: true });
        const all = await scheduleRuns(t.http, a.key, s.id);
        const fires = all.map((r) => new Date(fireTime(r, s.id)!).getTime()).sort((x, y) => x - y);
        // One run per tick: no fire time twice, and no tick between the first and the last left out.
        expect(new Set(fires).size).toBe(fires.length);
        expect(fires[fires.length - 1] - fires[0]).toBe((fires.length - 1) * 1000);
        expect(runs.length).toBeGreaterThanOrEqual(6);
        const stored = await t.sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM workflow_runs WHERE schedule_id = $1`,
          [s.id],
        );
        expect(stored[0].n).toBe(all.length);
      } finally {
        await replica.close();
      }
    });

    it('skip: starts no run while the previous one is going, and counts the skipped fires', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: holdDef,
        cron: '* * * * * *',
      });
      const [first] = await waitFor('the first run', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length > 0 ? found : undefined;
      });
      await waitForRun(t.http, a.key, first.id, 'RUNNING');
      await waitFor('two skipped fires', async () => {
        const read = await getSchedule(t.http, a.key, s.id);
        return read.skippedFires >= 2 ? read : undefined;
      });
      expect((await scheduleRuns(t.http, a.key, s.id)).map((r) => r.id)).toEqual([first.id]);
      const metrics = parseExposition((await t.http.get('/metrics')).text);
      expect(
        metrics.value('orchestrator_schedule_fires_total', { outcome: 'skipped' }),
      ).toBeGreaterThanOrEqual(2);
      await cancelAll(t.http, a.key, [first]);
      const runs = await waitFor('a run after the first ended', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length >= 2 ? found : undefined;
      });
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      await cancelAll(t.http, a.key, await scheduleRuns(t.http, a.key, s.id));
      // The second run is of a fire after the first run ended, not a remembered one.
      expect(new Date(fireTime(runs[1], s.id)!).getTime()).toBeGreaterThan(
        new Date(fireTime(runs[0], s.id)!).getTime() + 1000,
      );
    });

    it('buffer_one: remembers one fire while the previous run is going and starts it when it ends', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: holdDef,
        cron: '* * * * * *',
        overlapPolicy: 'buffer_one',
      });
      const [first] = await waitFor('the first run', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length > 0 ? found : undefined;
      });
      const buffered = await waitFor('a remembered fire and a skipped one', async () => {
        const read = await getSchedule(t.http, a.key, s.id);
        return read.bufferedFireAt !== null && read.skippedFires >= 1 ? read : undefined;
      });
      expect((await scheduleRuns(t.http, a.key, s.id)).map((r) => r.id)).toEqual([first.id]);
      // The remembered fire is the first one after the running run's.
      expect(new Date(buffered.bufferedFireAt!).getTime()).toBe(
        new Date(fireTime(first, s.id)!).getTime() + 1000,
      );
      await cancelAll(t.http, a.key, [first]);
      const runs = await waitFor('the remembered fire started', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length >= 2 ? found : undefined;
      });
      expect(fireTime(runs[1], s.id)).toBe(buffered.bufferedFireAt);
      // While the second run holds, a fire is remembered again; leaving buffer_one forgets it.
      await waitFor('a fire remembered behind the second run', async () => {
        const read = await getSchedule(t.http, a.key, s.id);
        return read.bufferedFireAt !== null && read.bufferedFireAt !== buffered.bufferedFireAt
          ? read
          : undefined;
      });
      const switched = await patchSchedule(t.http, a.key, s.id, { overlapPolicy: 'skip' });
      expect(switched.bufferedFireAt).toBeNull();
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      await cancelAll(t.http, a.key, await scheduleRuns(t.http, a.key, s.id));
    });

    it('allow: starts every fire while earlier runs are still going', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: holdDef,
        cron: '* * * * * *',
        overlapPolicy: 'allow',
      });
      const runs = await waitFor('three runs going at once', async () => {
        const found = await scheduleRuns(t.http, a.key, s.id);
        return found.length >= 3 ? found : undefined;
      });
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      for (const run of runs.slice(0, 3)) {
        // Each one holds its step until cancelled: three runs of the schedule going at once.
        expect((await waitForRun(t.http, a.key, run.id, 'RUNNING')).status).toBe('RUNNING');
      }
      expect((await getSchedule(t.http, a.key, s.id)).skippedFires).toBe(0);
      await cancelAll(t.http, a.key, await scheduleRuns(t.http, a.key, s.id));
    });

    it('pause and delete take effect at once: no fire after the answer starts a run', async () => {
      const s = await createSchedule(t.http, a.key, {
        definitionId: noopDef,
        cron: '* * * * * *',
        overlapPolicy: 'allow',
      });
      await waitFor('a first run', async () =>
        (await scheduleRuns(t.http, a.key, s.id)).length > 0 ? true : undefined,
      );
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      const pausedAt = Date.now();
      const beforeResume = (await scheduleRuns(t.http, a.key, s.id)).length;
      // A second schedule fires twice past the pause: the scheduler has looked at every due
      // schedule since, and the paused one started nothing.
      const witness = await createSchedule(t.http, a.key, {
        definitionId: noopDef,
        cron: '* * * * * *',
        overlapPolicy: 'allow',
      });
      await waitFor('the witness firing twice after the pause', async () => {
        const fires = (await scheduleRuns(t.http, a.key, witness.id)).map((r) =>
          new Date(fireTime(r, witness.id)!).getTime(),
        );
        return fires.filter((at) => at > pausedAt + 1000).length >= 2 ? true : undefined;
      });
      expect((await scheduleRuns(t.http, a.key, s.id)).length).toBe(beforeResume);
      for (const run of await scheduleRuns(t.http, a.key, s.id)) {
        expect(new Date(fireTime(run, s.id)!).getTime()).toBeLessThanOrEqual(pausedAt);
      }
      // Delete the witness: the same holds.
      const del = await t.http.delete(`/v1/schedules/${witness.id}`).set('x-api-key', a.key);
      expect(del.status).toBe(200);
      const deletedAt = Date.now();
      const witnessRuns = (await scheduleRuns(t.http, a.key, witness.id)).length;
      await patchSchedule(t.http, a.key, s.id, { paused: false });
      await waitFor('the resumed schedule firing twice after the delete', async () => {
        const fires = (await scheduleRuns(t.http, a.key, s.id)).map((r) =>
          new Date(fireTime(r, s.id)!).getTime(),
        );
        return fires.filter((at) => at > deletedAt + 1000).length >= 2 ? true : undefined;
      });
      await patchSchedule(t.http, a.key, s.id, { paused: true });
      const after = await scheduleRuns(t.http, a.key, witness.id);
      expect(after.length).toBe(witnessRuns);
      for (const run of after) {
        expect(new Date(fireTime(run, witness.id)!).getTime()).toBeLessThanOrEqual(deletedAt);
      }
    });
  });

  describe('with a clock moved forward', () => {
    let databaseUrl: string;
    let c: TestApp;
    let ws: WorkspaceWithKey;
    let def: string;

    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
      c = await createTestApp(
        { ...ENV, MAX_SCHEDULES_PER_WORKSPACE: String(MANY) },
        { databaseUrl },
      );
      ws = await createWorkspaceWithKey(c.http);
      def = await createDefinition(c.http, ws.key, [{ type: 'task', name: 'w', handler: 'noop' }]);
    });

    afterAll(async () => {
      await c?.close();
    });

    it('fires on time at the local time of its zone', async () => {
      const s = await createSchedule(c.http, ws.key, {
        definitionId: def,
        cron: '30 0 9 * * *',
        timezone: 'Europe/Berlin',
      });
      const fire = s.nextFireTimes[0];
      expect(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Berlin',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
        }).format(new Date(fire)),
      ).toBe('09:00:30');
      expect(await scheduleRuns(c.http, ws.key, s.id)).toEqual([]);
      const clock = c.app.get(SchedulerClock);
      clock.shift(new Date(fire).getTime() - clock.now().getTime());
      const [run] = await waitFor('the run of the fire', async () => {
        const found = await scheduleRuns(c.http, ws.key, s.id);
        return found.length > 0 ? found : undefined;
      });
      expect(run.idempotencyKey).toBe(`schedule:${s.id}:${fire}`);
      await waitForRun(c.http, ws.key, run.id, 'COMPLETED');
      const read = await getSchedule(c.http, ws.key, s.id);
      expect(read.lastFiredAt).toBe(fire);
      expect(read.nextFireTimes[0]).toBe(s.nextFireTimes[1]);
      expect(read.skippedFires).toBe(0);
      await c.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', ws.key);
    });

    it('starts a jittered fire at its delayed time, keyed by the fire time itself', async () => {
      const jitterMs = HOUR;
      const s = await createSchedule(c.http, ws.key, {
        definitionId: def,
        cron: '0 0 4 * * *',
        jitterMs,
      });
      const fire = s.nextFireTimes[0];
      const delay = jitterFor(s.id, new Date(fire), jitterMs);
      const clock = c.app.get(SchedulerClock);
      clock.shift(new Date(fire).getTime() + delay - clock.now().getTime());
      const [run] = await waitFor('the run of the jittered fire', async () => {
        const found = await scheduleRuns(c.http, ws.key, s.id);
        return found.length > 0 ? found : undefined;
      });
      expect(run.idempotencyKey).toBe(`schedule:${s.id}:${fire}`);
      expect((await getSchedule(c.http, ws.key, s.id)).lastFiredAt).toBe(fire);
      await c.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', ws.key);
    });

    it('follows the zone across the spring-forward night: a time in the gap fires once, just after it', async () => {
      // Berlin's clocks go from 02:00 CET to 03:00 CEST on 28 March 2027: 02:30 does not exist.
      moveClock(c, Date.parse('2027-03-26T12:00:00.000Z'));
      const s = await createSchedule(c.http, ws.key, {
        definitionId: def,
        cron: '30 2 * * *',
        timezone: 'Europe/Berlin',
      });
      expect(s.nextFireTimes.slice(0, 3)).toEqual([
        '2027-03-27T01:30:00.000Z',
        '2027-03-28T01:00:00.000Z',
        '2027-03-29T00:30:00.000Z',
      ]);
      moveClock(c, Date.parse('2027-03-28T01:00:00.500Z'));
      const runs = await waitFor('the runs of two fires', async () => {
        const read = await getSchedule(c.http, ws.key, s.id);
        return read.nextFireTimes[0] === '2027-03-29T00:30:00.000Z'
          ? await scheduleRuns(c.http, ws.key, s.id)
          : undefined;
      });
      // The fire of the 27th was missed by far more than the catch-up window: only the 28th's started.
      expect(runs.map((r) => r.idempotencyKey)).toEqual([
        `schedule:${s.id}:2027-03-28T01:00:00.000Z`,
      ]);
      await c.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', ws.key);
    });

    it('two replicas claiming many schedules due at once start exactly one run each', async () => {
      const replica = await createTestApp(ENV, { databaseUrl });
      try {
        const made: Schedule[] = [];
        for (let i = 0; i < MANY; i++) {
          made.push(
            await createSchedule(c.http, ws.key, {
              definitionId: def,
              cron: '0 0 5 * * *',
              overlapPolicy: 'allow',
            }),
          );
        }
        const fire = made[0].nextFireTimes[0];
        expect(new Set(made.map((s) => s.nextFireTimes[0]))).toEqual(new Set([fire]));
        const at = Date.parse(fire) + 200;
        moveClock(replica, at);
        moveClock(c, at);
        await waitFor('every schedule advanced past its fire', async () => {
          const page = await c.http.get('/v1/schedules?pageSize=100').set('x-api-key', ws.key);
          const all = (page.body as Page<Schedule>).data;
          return all.every((s) => s.lastFiredAt === fire) ? true : undefined;
        });
        const keys = await c.sql<{ key: string; n: number }>(
          `SELECT idempotency_key AS key, count(*)::int AS n FROM workflow_runs
           WHERE schedule_id = ANY($1::uuid[]) GROUP BY idempotency_key`,
          [made.map((m) => m.id)],
        );
        expect(keys.map((k) => k.key).sort()).toEqual(
          made.map((s) => `schedule:${s.id}:${fire}`).sort(),
        );
        expect(keys.every((k) => k.n === 1)).toBe(true);
        for (const s of made) await c.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', ws.key);
      } finally {
        await replica.close();
      }
    });

    it('refuses a schedule past MAX_SCHEDULES_PER_WORKSPACE with 409', async () => {
      const made: Schedule[] = [];
      for (let i = 0; i < MANY; i++) {
        made.push(await createSchedule(c.http, ws.key, { definitionId: def, cron: '0 0 1 1 *' }));
      }
      const res = await c.http
        .post('/v1/schedules')
        .set('x-api-key', ws.key)
        .send({ definitionId: def, cron: '0 0 1 1 *' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'CONFLICT', details: { limit: { name: 'MAX_SCHEDULES_PER_WORKSPACE' } } },
      });
      for (const s of made) await c.http.delete(`/v1/schedules/${s.id}`).set('x-api-key', ws.key);
    });

    it('after every replica was down, starts the latest missed fire once within the window and skips the rest', async () => {
      const within = await createSchedule(c.http, ws.key, {
        definitionId: def,
        cron: '0 * * * *',
        catchupWindowMs: HOUR,
      });
      const beyond = await createSchedule(c.http, ws.key, {
        definitionId: def,
        cron: '0 * * * *',
        catchupWindowMs: 10 * 60_000,
      });
      // Every replica stops; one comes back three and a half hours after the first missed fire.
      await c.close();
      c = await createTestApp(ENV, { databaseUrl });
      const first = new Date(within.nextFireTimes[0]).getTime();
      c.app.get(SchedulerClock).shift(first + 3.5 * HOUR - Date.now());
      const latest = new Date(first + 3 * HOUR).toISOString();
      const next = new Date(first + 4 * HOUR).toISOString();
      for (const s of [within, beyond]) {
        await waitFor(`schedule ${s.id} advanced past the gap`, async () => {
          const read = await getSchedule(c.http, ws.key, s.id);
          return read.nextFireTimes[0] === next ? read : undefined;
        });
      }
      const caughtUp = await scheduleRuns(c.http, ws.key, within.id);
      expect(caughtUp.map((r) => r.idempotencyKey)).toEqual([`schedule:${within.id}:${latest}`]);
      expect(await getSchedule(c.http, ws.key, within.id)).toMatchObject({
        lastFiredAt: latest,
        skippedFires: 3,
      });
      await waitForRun(c.http, ws.key, caughtUp[0].id, 'COMPLETED');
      expect(await scheduleRuns(c.http, ws.key, beyond.id)).toEqual([]);
      expect(await getSchedule(c.http, ws.key, beyond.id)).toMatchObject({
        lastFiredAt: null,
        skippedFires: 4,
      });
    });
  });
});
