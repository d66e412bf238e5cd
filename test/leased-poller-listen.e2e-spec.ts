import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { fileDatabaseUrl } from './support/database';
import { harness } from './support/leased-poller';
import { waitFor } from './support/wait';

/** The LeasedPoller's LISTEN connection, against the real database (its loop: leased-poller.spec.ts). */
describe('LeasedPoller with its LISTEN connection', () => {
  let databaseUrl: string;
  let notifier: Client;
  const channel = `leased_poller_test_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    databaseUrl = await fileDatabaseUrl();
    notifier = new Client({ connectionString: databaseUrl });
    await notifier.connect();
  });
  afterAll(() => notifier.end());

  const notify = (payload: string) =>
    notifier.query('SELECT pg_notify($1, $2)', [channel, payload]);

  it('wakes the loop on a notification once it claims', async () => {
    const t = harness({ listen: { url: databaseUrl, channels: [channel], label: 'test' } });
    await t.poller.start();
    t.enqueue('a');
    await notify('');
    await waitFor('a claimed after the notification', () =>
      t.ids().includes('a') ? true : undefined,
    );
    expect(t.claims).toEqual([3]);
    t.end('a');
    await t.poller.stop();
  });

  it("hands notifications to the owner's handler while listening without claiming", async () => {
    const received: Array<[string, string | undefined]> = [];
    const t = harness({
      listen: {
        url: databaseUrl,
        channels: [channel],
        onNotify: (ch, payload) => received.push([ch, payload]),
        label: 'test',
      },
    });
    await t.poller.listen();
    t.enqueue('a');
    await notify('run-1');
    await waitFor('the notification', () => (received.length > 0 ? true : undefined));
    expect(received).toEqual([[channel, 'run-1']]);
    expect(t.claims).toEqual([]);
    await t.poller.stop();
    expect(t.order).toEqual([]);
  });
});
