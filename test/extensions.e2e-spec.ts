import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkedAgent } from './support/openapi-check';
import type TestAgent from 'supertest/lib/agent';
import { fileDatabaseUrl } from './support/database';
import { createWorkspaceWithKey } from './support/factories';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { createDefinition, runEvents, startRun, waitForRun } from './support/workflows';

/** The repository root: EXTENSION_MODULES paths are relative to the service's working directory. */
const ROOT = path.resolve(__dirname, '..');
/** The example extension as `npm run build` compiles it, named the way an operator would. */
const GREETING = './examples/greeting-extension/dist';

/**
 * Extensions loaded from EXTENSION_MODULES by the real service process (`node dist/main.js`): the
 * example's task handler runs in workflows, and an extension that cannot load stops the start-up
 * with one line naming it.
 */
describe('extensions (EXTENSION_MODULES)', () => {
  const started: ServiceProcess[] = [];
  let databaseUrl: string;
  let fixtures: string;

  const start = async (extensions: string): Promise<ServiceProcess> => {
    const service = startService({
      cwd: ROOT,
      env: {
        DATABASE_URL: databaseUrl,
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '100',
        EXTENSION_MODULES: extensions,
      },
    });
    started.push(service);
    return service;
  };

  /** The process's exit code and its stderr, which must be exactly one line. */
  const failure = async (
    service: ServiceProcess,
  ): Promise<{ code: number | null; line: string }> => {
    const { code } = await service.exited(30_000);
    const lines = service.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    return { code, line: lines[0] };
  };

  beforeAll(async () => {
    databaseUrl = await fileDatabaseUrl();
    fixtures = await mkdtemp(path.join(tmpdir(), 'wf-extensions-'));
    await writeFile(path.join(fixtures, 'nothing.js'), 'module.exports = { version: 1 };\n');
    await writeFile(
      path.join(fixtures, 'throws.js'),
      "throw new Error('GREETING_API_KEY is not set');\n",
    );
  });

  afterAll(async () => {
    for (const s of started.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
    await rm(fixtures, { recursive: true, force: true });
  });

  describe('the greeting example', () => {
    let service: ServiceProcess;
    let http: TestAgent;
    let key: string;

    beforeAll(async () => {
      service = await start(GREETING);
      await waitUntilReady(service, 30_000);
      http = checkedAgent(service.baseUrl);
      ({ key } = await createWorkspaceWithKey(http));
    });

    it('logs the loaded extension and registers its handler at start-up', () => {
      const lines = logLines(service);
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: `loaded 1 extension(s): ${GREETING} (GreetingModule)`,
          extensions: [
            {
              name: GREETING,
              file: path.join(ROOT, 'examples', 'greeting-extension', 'dist', 'index.js'),
            },
          ],
        }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'task handlers: greet, http, noop, transform' }),
      );
    });

    it('runs the greet handler in a workflow and stores its output', async () => {
      const definitionId = await createDefinition(http, key, [
        { type: 'task', name: 'hello', handler: 'greet', config: { name: '{{customer.name}}' } },
        {
          type: 'task',
          name: 'formal',
          handler: 'greet',
          config: { name: 'Ms Lovelace', salutation: 'Good morning' },
          outputKey: 'letter',
        },
      ]);
      const runId = await startRun(http, key, definitionId, { customer: { name: 'Ada' } });

      const run = await waitForRun(http, key, runId, 'COMPLETED', 30_000);
      expect(run.output).toEqual({
        customer: { name: 'Ada' },
        hello: { greeting: 'Hello, Ada!', attempt: 1 },
        letter: { greeting: 'Good morning, Ms Lovelace!', attempt: 1 },
      });
    });

    it("fails the step at once when the handler throws the package's NonRetryableError", async () => {
      const definitionId = await createDefinition(http, key, [
        { type: 'task', name: 'hello', handler: 'greet', retry: { maxAttempts: 3 } },
      ]);
      const runId = await startRun(http, key, definitionId);

      const run = await waitForRun(http, key, runId, 'FAILED', 30_000);
      expect(run.error).toBe('greet needs config.name, a non-empty string');
      const types = (await runEvents(http, key, runId)).map((e) => e.eventType);
      expect(types.filter((t) => t === 'STEP_STARTED')).toHaveLength(1);
      expect(types).not.toContain('STEP_RETRYING');
    });

    it('registers its step type beside the built-in ones', () => {
      expect(logLines(service)).toContainEqual(
        expect.objectContaining({
          msg: expect.stringContaining(
            'step types task, wait, condition, external_event, llm, approval, workflow, map, shout',
          ),
        }),
      );
    });

    it('runs its shout step type in a workflow, after a built-in step', async () => {
      const definitionId = await createDefinition(http, key, [
        { type: 'task', name: 'hello', handler: 'greet', config: { name: 'Ada' } },
        { type: 'shout', name: 'loud', text: 'welcome {{who}}' },
        { type: 'shout', name: 'louder', from: 'who', outputKey: 'name' },
      ]);
      const runId = await startRun(http, key, definitionId, { who: 'ada' });

      const run = await waitForRun(http, key, runId, 'COMPLETED', 30_000);
      expect(run.output).toEqual({
        who: 'ada',
        hello: { greeting: 'Hello, Ada!', attempt: 1 },
        loud: { text: 'WELCOME ADA!' },
        name: { text: 'ADA!' },
      });
    });

    it("validates its steps with the type's DTO and check, naming the field", async () => {
      const res = await http
        .post('/v1/workflow-definitions')
        .set('x-api-key', key)
        .send({
          name: 'shouting',
          version: '1',
          steps: [
            { type: 'shout', name: 'a', text: 'hi', volume: 11 },
            { type: 'shout', name: 'b' },
          ],
        })
        .expect(400);
      expect(res.body.error.details.errors).toEqual([
        { field: 'steps[0].volume', message: 'is not allowed' },
        { field: 'steps[1].text', message: 'give either text or from, not both or neither' },
      ]);
    });

    it('lists its step type in the message for an unknown type', async () => {
      const res = await http
        .post('/v1/workflow-definitions')
        .set('x-api-key', key)
        .send({ name: 'unknown', version: '1', steps: [{ type: 'whisper', name: 'a' }] })
        .expect(400);
      expect(res.body.error.details.errors).toEqual([
        {
          field: 'steps[0].type',
          message: 'must be one of task, wait, condition, external_event, llm, approval, workflow, map, shout',
        },
      ]);
    });
  });

  it('exits 1 naming an extension path that does not exist', async () => {
    const { code, line } = await failure(await start(`${GREETING},./examples/no-such-extension`));
    expect(code).toBe(1);
    expect(line).toBe(
      'failed to start: extension "./examples/no-such-extension" (EXTENSION_MODULES) cannot be ' +
        `found: no module at ${path.join(ROOT, 'examples', 'no-such-extension')} (a path is ` +
        'relative to the working directory).',
    );
  });

  it('exits 1 naming an extension package that is not installed', async () => {
    const { code, line } = await failure(await start('@acme/workflow-greetings'));
    expect(code).toBe(1);
    expect(line).toBe(
      'failed to start: extension "@acme/workflow-greetings" (EXTENSION_MODULES) cannot be found: ' +
        `no package "@acme/workflow-greetings" in the node_modules of ${ROOT} or above. Install ` +
        'it, or give a path starting with ./, ../ or /.',
    );
  });

  it('exits 1 naming an extension that exports no module', async () => {
    const nothing = path.join(fixtures, 'nothing.js');
    const { code, line } = await failure(await start(nothing));
    expect(code).toBe(1);
    expect(line).toBe(
      `failed to start: extension "${nothing}" (EXTENSION_MODULES) exports no Nest module: its ` +
        'default export must be a class decorated with @Module({...}) or a dynamic module.',
    );
  });

  it('exits 1 naming an extension that throws while loading, with its message', async () => {
    const throws = path.join(fixtures, 'throws.js');
    const { code, line } = await failure(await start(throws));
    expect(code).toBe(1);
    expect(line).toBe(
      `failed to start: extension "${throws}" (EXTENSION_MODULES) threw while loading: ` +
        'GREETING_API_KEY is not set',
    );
  });
});
