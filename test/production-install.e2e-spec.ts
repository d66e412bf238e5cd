import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type TestAgent from 'supertest/lib/agent';
import { onServer } from './support/database';
import { createWorkspaceWithKey } from './support/factories';
import { readRuntimeRecipe } from './support/image-recipe';
import { checkedAgent } from './support/openapi-check';
import { withDatabase } from './support/pg-url';
import {
  installForProduction,
  moveToDevDependencies,
  undeclaredRuntimePackages,
  unprivilegedUser,
  type PackageLock,
  type PackageManifest,
  type ServiceUser,
} from './support/production-install';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { createDefinition, startRun, waitForRun } from './support/workflows';

const ROOT = path.resolve(__dirname, '..');
const recipe = readRuntimeRecipe(path.join(ROOT, 'Dockerfile'));
const manifest = JSON.parse(
  readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
) as PackageManifest;

/**
 * A runtime dependency of dist/ that the second case pretends was added with `npm install -D`: loaded
 * at start-up (dist/config/app-config.js needs it) and a leaf of the tree, so only the root's
 * declaration installs it.
 */
const MOVED_DEPENDENCY = 'jsonata';

/**
 * The example extension installed the way README "An image with extensions" installs a published one:
 * a package of its own under extensions/node_modules, outside the service's package, so that its
 * `require('workflow-orchestrator')` finds the service only through the link the Dockerfile adds.
 */
const EXTENSION = './extensions/node_modules/greeting-extension';

/** A database with no schema yet: the production install applies the migrations at start-up. */
async function createEmptyDatabase(): Promise<string> {
  const serverUrl = process.env.WF_TEST_SERVER_URL;
  const runId = process.env.WF_TEST_RUN_ID;
  if (!serverUrl || !runId) throw new Error('e2e global setup did not run');
  // The wf_t_<run>_ prefix makes the global teardown drop it.
  const name = `wf_t_${runId}_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  return withDatabase(serverUrl, name);
}

/** The service as the image's CMD starts it, in `dir`, as `user`. */
async function startLikeTheImage(
  dir: string,
  user: ServiceUser | undefined,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const [program, entry] = recipe.cmd;
  if (program !== 'node') throw new Error(`the image's CMD runs ${program}, not node`);
  return startService({
    cwd: dir,
    main: path.join(dir, entry),
    user,
    env: { ...recipe.env, PORT: String(await freePort()), ...env },
  });
}

/** The user id the process runs as, from /proc. */
function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

/** The major version in a range or version such as `>=20.19.0` or `^20.19.43`. */
const majorOf = (version: string | undefined): number => Number(/(\d+)\./.exec(version ?? '')?.[1]);

describe('the image runtime, reproduced without Docker', () => {
  const user = unprivilegedUser(recipe.user);
  const started: ServiceProcess[] = [];
  const dirs: string[] = [];

  const tempDir = async (prefix: string): Promise<string> => {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  /** A production install in a directory of its own; `edit` changes package.json and the lock first. */
  const install = async (
    prefix: string,
    edit?: (manifest: PackageManifest, lock: PackageLock) => void,
  ): Promise<string> => {
    const dir = await tempDir(prefix);
    await installForProduction(recipe, { root: ROOT, dir, user, edit });
    return dir;
  };
  // Both installs run side by side (mostly waiting on the disk); each case awaits its own.
  let regularInstall: Promise<string>;
  let devOnlyInstall: Promise<string>;
  beforeAll(() => {
    regularInstall = install('wf-image-');
    devOnlyInstall = install('wf-image-devonly-', (devOnly, lock) =>
      moveToDevDependencies(devOnly, lock, MOVED_DEPENDENCY),
    );
    // Awaited by their cases; this only keeps a failure from being reported as unhandled first.
    for (const p of [regularInstall, devOnlyInstall]) p.catch(() => undefined);
  });

  afterAll(async () => {
    for (const s of started.splice(0)) {
      s.kill();
      await s.exited(10_000).catch(() => undefined);
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  describe('the Dockerfile (what this test reproduces)', () => {
    it('installs the production dependencies only, from package.json and its lock', () => {
      expect(recipe.install).toEqual({
        stage: 'deps',
        inputs: ['package.json', 'package-lock.json'],
        command: ['npm', 'ci', '--omit=dev'],
      });
    });

    it('runs dist/main.js in production mode from /app, as the unprivileged node user', () => {
      expect(recipe).toMatchObject({
        workdir: '/app',
        env: { NODE_ENV: 'production', PORT: '3000' },
        copies: [
          { from: 'deps', sources: ['/app/node_modules'], dest: './node_modules' },
          { from: 'build', sources: ['/app/dist'], dest: './dist' },
          { from: null, sources: ['package.json'], dest: './' },
        ],
        commands: [
          ['mkdir', '-p', '/app/.data'],
          ['chown', 'node:node', '/app/.data'],
          ['ln', '-s', '/app', '/app/node_modules/workflow-orchestrator'],
        ],
        user: 'node',
        cmd: ['node', 'dist/main.js'],
      });
    });

    it("bases every stage on the Node.js major of package.json's engines, @types/node and CI", () => {
      const major = majorOf(manifest.engines?.node);
      expect(Object.values(recipe.nodeMajors)).toEqual([major, major, major]);
      expect(majorOf(manifest.devDependencies?.['@types/node'])).toBe(major);
      // The service below runs on this test's Node.js: it reproduces the image only on the same major.
      expect(`Node.js ${majorOf(process.versions.node)} runs this test`).toBe(
        `Node.js ${major} runs this test`,
      );
    });
  });

  describe('the packages that dist/ requires', () => {
    it('are Node.js built-ins or listed in dependencies', async () => {
      await expect(undeclaredRuntimePackages(path.join(ROOT, 'dist'), manifest)).resolves.toEqual(
        [],
      );
    });

    it('are reported, with the files requiring them, when only devDependencies list one', async () => {
      const devOnly = structuredClone(manifest);
      const lock = JSON.parse(
        await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'),
      ) as PackageLock;
      moveToDevDependencies(devOnly, lock, MOVED_DEPENDENCY);

      await expect(undeclaredRuntimePackages(path.join(ROOT, 'dist'), devOnly)).resolves.toEqual([
        { name: MOVED_DEPENDENCY, files: expect.arrayContaining(['common/jsonata.js']) },
      ]);
    });
  });

  describe('a production-only install started as the image starts it', () => {
    let dir: string;
    let databaseUrl: string;
    let service: ServiceProcess;
    let http: TestAgent;
    const adminToken = randomBytes(24).toString('hex');

    const start = (): Promise<ServiceProcess> =>
      startLikeTheImage(dir, user, {
        DATABASE_URL: databaseUrl,
        ADMIN_TOKEN: adminToken,
        EXTENSION_MODULES: EXTENSION,
      }).then((s) => {
        started.push(s);
        return s;
      });

    beforeAll(async () => {
      dir = await regularInstall;
      const extension = path.join(dir, EXTENSION);
      await mkdir(extension, { recursive: true });
      await cp(path.join(ROOT, 'examples', 'greeting-extension', 'dist'), extension, {
        recursive: true,
      });
      await writeFile(
        path.join(extension, 'package.json'),
        JSON.stringify({
          name: 'greeting-extension',
          version: '1.0.0',
          main: 'index.js',
          peerDependencies: { '@nestjs/common': '*', 'workflow-orchestrator': '*' },
        }),
      );
      databaseUrl = await createEmptyDatabase();
      service = await start();
      await waitUntilReady(service, 60_000);
      http = checkedAgent(service.baseUrl);
    }, 300_000);

    it('leaves out every package that the lock marks as for development only', async () => {
      const lock = JSON.parse(
        await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'),
      ) as PackageLock;
      const devOnly = Object.keys(lock.packages).filter(
        (key) => key.startsWith('node_modules/') && lock.packages[key].dev,
      );
      expect(devOnly).toContain('node_modules/jest');
      expect(devOnly.filter((key) => existsSync(path.join(dir, key)))).toEqual([]);
      expect(existsSync(path.join(dir, 'node_modules', 'pg'))).toBe(true);
    });

    it('runs the service as a user other than root', () => {
      const uid = uidOf(service.child.pid ?? 0);
      expect(uid).not.toBe(0);
      if (user) expect(uid).toBe(user.uid);
    });

    it('applies the migrations to the empty database and answers /ready', async () => {
      expect(logLines(service)).toContainEqual(
        expect.objectContaining({ msg: expect.stringMatching(/^applied \d+ migration\(s\)$/) }),
      );
      const res = await http.get('/ready');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { status: 'ready', database: 'up' } });
    });

    it('serves the console the build stage put into dist, page and assets', async () => {
      const page = await http.get('/console/approvals');
      expect(page.status).toBe(200);
      const script = /<script[^>]+src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
      expect(script).toBeDefined();
      const asset = await http.get(script ?? '');
      expect(asset.status).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    });

    it("passes the image's HEALTHCHECK command", () => {
      const [program, ...args] = recipe.healthcheck;
      expect(program).toBe('node');
      const check = spawnSync(process.execPath, args, {
        cwd: dir,
        env: { PATH: process.env.PATH, PORT: new URL(service.baseUrl).port },
        uid: user?.uid,
        gid: user?.gid,
        timeout: 10_000,
      });
      expect(check.status).toBe(0);
    });

    it('runs a workflow with built-in steps and a packaged extension to COMPLETED', async () => {
      const { key } = await createWorkspaceWithKey(http, { adminToken });
      const definitionId = await createDefinition(http, key, [
        {
          type: 'task',
          name: 'price',
          handler: 'transform',
          config: { expression: '{"total": $sum(items.(price * qty))}' },
        },
        { type: 'condition', name: 'big-order', expression: 'price.total > 100', then: 'greet' },
        { type: 'task', name: 'skipped', handler: 'noop' },
        { type: 'task', name: 'greet', handler: 'greet', config: { name: '{{customer}}' } },
      ]);
      const runId = await startRun(http, key, definitionId, {
        customer: 'Ada',
        items: [{ price: 40, qty: 3 }],
      });

      const run = await waitForRun(http, key, runId, 'COMPLETED', 30_000);
      expect(run.output).toEqual({
        customer: 'Ada',
        items: [{ price: 40, qty: 3 }],
        price: { total: 120 },
        'big-order': { result: true, next: 'greet' },
        greet: { greeting: 'Hello, Ada!', attempt: 1 },
      });
    });

    it('stops on SIGTERM with exit code 0', async () => {
      service.child.kill('SIGTERM');
      await expect(service.exited(40_000)).resolves.toEqual({ code: 0, signal: null });
    });

    it('cannot load a packaged extension without the link to the service the Dockerfile adds', async () => {
      const link = path.join(dir, 'node_modules', 'workflow-orchestrator');
      await unlink(link);
      try {
        const broken = await start();
        const { code } = await broken.exited(30_000);
        expect(code).toBe(1);
        expect(broken.stderr()).toContain(
          `extension "${EXTENSION}" (EXTENSION_MODULES) threw while loading: Cannot find module 'workflow-orchestrator'`,
        );
      } finally {
        await symlink(dir, link);
      }
    }, 60_000);
  });

  describe('a runtime dependency that only devDependencies list', () => {
    it('makes the production install fail to start, naming the missing module', async () => {
      const dir = await devOnlyInstall;
      expect(existsSync(path.join(dir, 'node_modules', MOVED_DEPENDENCY))).toBe(false);

      const service = await startLikeTheImage(dir, user, {
        DATABASE_URL: await createEmptyDatabase(),
      });
      started.push(service);
      const { code } = await service.exited(30_000);
      expect(code).toBe(1);
      expect(service.stderr()).toContain(`Cannot find module '${MOVED_DEPENDENCY}'`);
    }, 300_000);
  });
});
