import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { checkedAgent } from './support/openapi-check';
import type TestAgent from 'supertest/lib/agent';
import { encryptionKeyId } from '../src/common/secret-cipher';
import { fileDatabaseUrl } from './support/database';
import { createWorkspaceWithKey, type WorkspaceWithKey } from './support/factories';
import { startHttpsReceiver, type HttpsReceiver } from './support/https-receiver';
import {
  freePort,
  logLines,
  startService,
  waitUntilReady,
  type ServiceProcess,
} from './support/service-process';
import { createDefinition, eventually, startRun, waitForRun } from './support/workflows';

/**
 * Webhook secrets at rest, through real service processes on one database, restarted with the keys
 * of each stage of a key's life: none (plain text and a warning), a first key (plain rows get
 * encrypted), a rotation (rows of the former key end up under the new one), a lost key (deliveries
 * fail with a clear error, the sender keeps going), and encryption turned off again. At every stage
 * the receiver verifies each delivery with the secret shown at creation, both signature schemes.
 */

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const KEY_C = randomBytes(32).toString('base64url');
const kid = (key: string) => encryptionKeyId(Buffer.from(key, 'base64'));

interface Hook {
  id: string;
  secret: string;
  path: string;
}

describe('webhook secrets at rest', () => {
  let receiver: HttpsReceiver;
  let databaseUrl: string;
  let db: Client;
  let service: ServiceProcess | undefined;
  let http: TestAgent;
  let ws: WorkspaceWithKey;
  let definitionId: string;
  const hooks: Hook[] = [];
  const started: ServiceProcess[] = [];

  /** Stops the running service, if any, and starts one with `env` (keys) on the same database. */
  async function restart(env: Record<string, string>): Promise<ServiceProcess> {
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited(30_000);
    }
    const port = await freePort();
    service = startService({
      env: {
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        NODE_EXTRA_CA_CERTS: receiver.certificate.certFile,
        LOG_LEVEL: 'info',
        RATE_LIMIT_MAX: '0',
        EXECUTOR_POLL_INTERVAL_MS: '200',
        EXECUTOR_CONCURRENCY: '4',
        WEBHOOK_RETRY_DELAYS_MS: '0,200,200',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ...env,
      },
    });
    started.push(service);
    await waitUntilReady(service, 30_000);
    http = checkedAgent(service.baseUrl);
    return service;
  }

  let pathCounter = 0;
  async function registerWebhook(): Promise<Hook> {
    const path = `/secret-${++pathCounter}`;
    const url = receiver.route(path);
    const res = await http
      .post('/v1/webhooks')
      .set('x-api-key', ws.key)
      .send({ url, events: ['workflow.completed'] });
    if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
    const hook = { id: res.body.data.id as string, secret: res.body.data.secret as string, path };
    receiver.setSecret(path, hook.secret);
    hooks.push(hook);
    return hook;
  }

  async function storedSecret(hook: Hook): Promise<string> {
    const res = await db.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
      hook.id,
    ]);
    return res.rows[0].secret;
  }

  /** Waits until every hook's stored secret satisfies `check` (the start-up pass runs behind). */
  async function storedSecretsBecome(
    list: Hook[],
    check: (stored: string, hook: Hook) => boolean,
    what: string,
  ): Promise<void> {
    await eventually(
      async () => {
        const values = await Promise.all(list.map(storedSecret));
        return values.every((v, i) => check(v, list[i]));
      },
      15_000,
      what,
    );
  }

  /** No column of any webhook row holds a plain secret, or the random part of one. */
  async function expectNoPlainSecretInTable(list: Hook[]): Promise<void> {
    const rows = await db.query<{ whole: string }>(
      'SELECT row_to_json(w)::text AS whole FROM webhooks w',
    );
    const table = rows.rows.map((r) => r.whole).join('\n');
    for (const hook of list) {
      expect(table).not.toContain(hook.secret.slice('whsec_'.length, 'whsec_'.length + 16));
    }
  }

  async function completeRun(): Promise<string> {
    const runId = await startRun(http, ws.key, definitionId);
    await waitForRun(http, ws.key, runId, 'COMPLETED');
    return runId;
  }

  /** Each hook got this run's delivery, and both signatures verify with its creation secret. */
  async function expectVerifiedDeliveries(list: Hook[], runId: string): Promise<void> {
    for (const hook of list) {
      const got = await eventually(
        async () =>
          receiver
            .received(hook.path)
            .find((d) => (JSON.parse(d.body) as { workflowRunId: string }).workflowRunId === runId),
        15_000,
        `the delivery of run ${runId} to ${hook.path}`,
      );
      expect(got.hmacValid).toBe(true);
      expect(got.standardValid).toBe(true);
    }
  }

  function logged(pattern: RegExp): Array<Record<string, unknown>> {
    return logLines(service!).filter((l) => pattern.test(String(l.msg)));
  }

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    databaseUrl = await fileDatabaseUrl();
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    for (const svc of started) svc.kill();
    await db.end();
    await receiver.close();
  });

  it.each([
    ['not base64', 'definitely not a key'],
    ['16 bytes', randomBytes(16).toString('base64')],
    ['64 hex digits', randomBytes(32).toString('hex')],
  ])(
    'refuses to start with an ENCRYPTION_KEY of %s, in one line naming the variable and not the value',
    async (_case, value) => {
      const svc = startService({
        env: {
          PORT: String(await freePort()),
          DATABASE_URL: 'postgres://127.0.0.1:1/none',
          ENCRYPTION_KEY: value,
        },
      });
      started.push(svc);
      const { code } = await svc.exited(30_000);
      expect(code).not.toBe(0);
      const output = `${svc.stdout()}${svc.stderr()}`;
      expect(output).toContain(
        'ENCRYPTION_KEY: must be the base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)',
      );
      expect(output).not.toContain(value);
      expect(output).not.toMatch(/\n\s+at /);
    },
  );

  it('without ENCRYPTION_KEY: stores the secret in plain text and warns at start-up', async () => {
    await restart({});
    expect(logged(/^ENCRYPTION_KEY is not set: webhook secrets are stored in plain text/)).toEqual([
      expect.objectContaining({ level: 40 }),
    ]);
    ws = await createWorkspaceWithKey(http);
    definitionId = await createDefinition(http, ws.key, [
      { type: 'task', name: 'only', handler: 'noop' },
    ]);
    const hook = await registerWebhook();
    expect(await storedSecret(hook)).toBe(hook.secret);
    await expectVerifiedDeliveries([hook], await completeRun());
  });

  it('with ENCRYPTION_KEY: encrypts the existing plain rows at start-up and new secrets at creation, and deliveries verify with the secrets shown at creation', async () => {
    await restart({ ENCRYPTION_KEY: KEY_A });
    expect(logged(/ENCRYPTION_KEY is not set/)).toEqual([]);
    await registerWebhook();
    await registerWebhook();
    await storedSecretsBecome(
      hooks,
      (stored) => stored.startsWith(`enc:v1:${kid(KEY_A)}:`),
      'every secret to be stored under key A',
    );
    await expectNoPlainSecretInTable(hooks);
    expect(logged(/^stored 1 webhook secret\(s\) encrypted with key /)).toHaveLength(1);
    await expectVerifiedDeliveries(hooks, await completeRun());
    // The listing never shows a secret, encrypted or not.
    const list = await http.get('/v1/webhooks').set('x-api-key', ws.key);
    expect(list.text).not.toMatch(/enc:v1|whsec_/);
  });

  it('rotation: with ENCRYPTION_KEY_PREVIOUS the rows of the former key still deliver, and end up under the new key', async () => {
    await restart({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: `${KEY_C},${KEY_A}` });
    // Deliveries right after the start may still read rows of key A.
    await expectVerifiedDeliveries(hooks, await completeRun());
    await storedSecretsBecome(
      hooks,
      (stored) => stored.startsWith(`enc:v1:${kid(KEY_B)}:`),
      'every secret to be stored under key B',
    );
    await expectNoPlainSecretInTable(hooks);
    expect(logged(/^stored 3 webhook secret\(s\) encrypted with key /)).toHaveLength(1);
    await expectVerifiedDeliveries(hooks, await completeRun());

    // The next start finds nothing left to do: the former keys may go.
    await restart({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: KEY_A });
    await eventually(
      async () => logged(/^every webhook secret is stored encrypted with key /).length === 1,
      15_000,
      'the start-up pass to report nothing left',
    );
  });

  it('a lost key: deliveries of unreadable rows fail with a clear error, the sender keeps delivering the others, and the start-up log names the key id', async () => {
    const unreadable = [...hooks];
    await restart({ ENCRYPTION_KEY: KEY_C });
    const fresh = await registerWebhook();
    const runId = await completeRun();
    await expectVerifiedDeliveries([fresh], runId);
    for (const hook of unreadable) {
      const [delivery] = await eventually(
        async () => {
          const res = await http
            .get(`/v1/webhooks/${hook.id}/deliveries?status=failed`)
            .set('x-api-key', ws.key);
          const found = (
            res.body.data as Array<{ workflowRunId: string; attempts: number; lastError: string }>
          ).filter((d) => d.workflowRunId === runId);
          return found.length ? found : undefined;
        },
        15_000,
        `the delivery to ${hook.path} to fail`,
      );
      expect(delivery).toMatchObject({
        attempts: 3,
        lastError:
          'the webhook secret cannot be decrypted: it was encrypted with a key this server no longer has',
      });
      expect(
        receiver
          .received(hook.path)
          .filter((d) => (JSON.parse(d.body) as { workflowRunId: string }).workflowRunId === runId),
      ).toEqual([]);
      // The rows are left as they were, for the key to come back.
      expect((await storedSecret(hook)).startsWith(`enc:v1:${kid(KEY_B)}:`)).toBe(true);
    }
    expect((await fetch(`${service!.baseUrl}/ready`)).status).toBe(200);
    await eventually(
      async () =>
        logged(/^3 webhook secret\(s\) cannot be decrypted with the configured keys/).find((l) =>
          String(l.msg).includes(kid(KEY_B)),
        ),
      15_000,
      'the start-up pass to report the unreadable rows',
    );
    expect(logged(/ENCRYPTION_KEY_PREVIOUS/).length).toBeGreaterThan(1);
  });

  it('encryption turned off: with only ENCRYPTION_KEY_PREVIOUS the rows go back to plain text, with the warning', async () => {
    await restart({ ENCRYPTION_KEY_PREVIOUS: `${KEY_B},${KEY_C}` });
    expect(logged(/^ENCRYPTION_KEY is not set/)).toHaveLength(1);
    await storedSecretsBecome(
      hooks,
      (stored, hook) => stored === hook.secret,
      'every secret to be back in plain text',
    );
    await expectVerifiedDeliveries(hooks, await completeRun());
  });
});
