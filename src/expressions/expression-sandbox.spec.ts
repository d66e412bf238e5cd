import { ExpressionError, ExpressionLimitError, MAX_STRING_LENGTH } from '../common/jsonata';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../../test/support/wait';
import {
  ExpressionCancelledError,
  ExpressionSandbox,
  ExpressionSandboxUnavailableError,
  KILL_GRACE_MS,
  workerScript,
  type SandboxOptions,
} from './expression-sandbox';
import { MAX_ERROR_MESSAGE_CHARS } from './sandbox-protocol';

/**
 * The sandbox runs its real workers (dist/expressions/expression-worker.js, built by `npm test`'s
 * pretest). The hostile expressions are the classes the sandbox exists for: native operations too long
 * for JSONata's own timeout check, heaps past their limit, results past their cap.
 */
const BASE: SandboxOptions = { workers: 2, timeoutMs: 500, memoryMb: 32, maxResultBytes: 4096 };

/** Single native operations that run for seconds: JSONata checks its timeout only between steps. */
/** One native call ($distinct compares every pair) that runs for seconds. */
const SPIN = '$count($distinct([1..100000]))';
/**
 * Expressions whose time goes into one native call. The arrays of arrays come with the input: built
 * by a JSONata path (`[1..90000].[$]`), on a loaded machine the path alone could use the budget, and
 * the worker would stop itself at its own check instead of being killed.
 */
const NATIVE_SPINS: Array<[string, Record<string, unknown>]> = [
  [SPIN, {}],
  ['$count($distinct(pairs))', { pairs: Array.from({ length: 90_000 }, (_, i) => [i]) }],
];
/** Expressions that need far more heap than 32 MB within a few hundred milliseconds. */
const MEMORY_HOGS = [
  '$count([1..100].{"a": [1..500000]})',
  '$count([1..50].{"x": $split($pad("", 900000), "")})',
];

/**
 * The module object the sandbox calls `fork` on (a namespace import is a frozen copy), so that a test
 * can make fork throw.
 */
const childProcess = jest.requireActual<typeof import('node:child_process')>('node:child_process');

const sandboxes: ExpressionSandbox[] = [];
async function started(options: Partial<SandboxOptions> = {}): Promise<ExpressionSandbox> {
  const sandbox = new ExpressionSandbox({ ...BASE, ...options });
  sandboxes.push(sandbox);
  await sandbox.start();
  return sandbox;
}

/** Whether `pid` runs; an exited process not yet reaped (a zombie, where no init reaps) does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return !existsSync('/proc');
  }
}

/** Settles `promise` as a value or the error it rejected with (for the tests that compare both). */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return await promise;
  } catch (err) {
    return err;
  }
}

afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

describe('ExpressionSandbox', () => {
  it('evaluates against the input with bindings, answering plain JSON data', async () => {
    const sandbox = await started();
    await expect(
      sandbox.evaluate(
        'ws',
        '{"total": $sum(items.price) * $attempt}',
        { items: [{ price: 2 }] },
        {
          attempt: 3,
        },
      ),
    ).resolves.toEqual({ total: 6 });
    await expect(sandbox.evaluate('ws', 'missing', {})).resolves.toBeUndefined();
    // Functions cannot leave a worker; they come back as null (false for a condition, like $boolean).
    await expect(sandbox.evaluate('ws', 'function($x){ $x }', {})).resolves.toBeNull();
    await expect(sandbox.evaluate('ws', '[1, function($x){ $x }]', {})).resolves.toEqual([1, null]);
    // Sequences come back as plain arrays.
    await expect(sandbox.evaluate('ws', 'a.b', { a: [{ b: 1 }, { b: 2 }] })).resolves.toEqual([
      1, 2,
    ]);
  });

  it('keeps ordinary JSONata errors ordinary (ExpressionError, not a limit)', async () => {
    const sandbox = await started();
    for (const [expression, message] of [
      ['$error("price missing")', 'price missing'],
      ['(', /^invalid JSONata expression: /],
      ['"a" + 1', /must evaluate to a number/],
    ] as const) {
      const err = await outcome(sandbox.evaluate('ws', expression, {}));
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err).not.toBeInstanceOf(ExpressionLimitError);
      expect((err as Error).message).toMatch(message);
    }
  });

  it.each(NATIVE_SPINS)(
    'kills a worker stuck in one native operation past its budget (%s) and replaces it',
    async (expression, input) => {
      const sandbox = await started({ workers: 1 });
      const [before] = sandbox.pids();
      const started_ = Date.now();
      const err = await outcome(sandbox.evaluate('ws', expression, input));
      expect(err).toBeInstanceOf(ExpressionLimitError);
      expect((err as Error).message).toBe('expression exceeded its time budget of 500 ms');
      // Killed at the budget plus the grace; without the kill this takes many seconds.
      expect(Date.now() - started_).toBeGreaterThanOrEqual(BASE.timeoutMs + KILL_GRACE_MS - 50);
      await expect(sandbox.evaluate('ws', '1 + 1', {})).resolves.toBe(2);
      expect(sandbox.pids()).toHaveLength(1);
      expect(sandbox.pids()).not.toContain(before);
      expect(alive(before)).toBe(false);
    },
  );

  it.each(MEMORY_HOGS)(
    'fails only the evaluation whose worker ran out of memory (%s)',
    async (expression) => {
      const sandbox = await started({ workers: 2 });
      const pids = sandbox.pids();
      const [hog, innocent] = await Promise.all([
        outcome(sandbox.evaluate('ws-a', expression, {})),
        outcome(sandbox.evaluate('ws-b', '$sum([1..1000])', {})),
      ]);
      expect(hog).toBeInstanceOf(ExpressionLimitError);
      expect((hog as Error).message).toBe('expression exceeded its memory limit of 32 MB');
      expect(innocent).toBe(500500);
      await expect(sandbox.evaluate('ws', '"still" & " serving"', {})).resolves.toBe(
        'still serving',
      );
      expect(sandbox.pids()).toHaveLength(2);
      expect(sandbox.pids().filter((pid) => pids.includes(pid))).toHaveLength(1);
    },
  );

  it('refuses a result larger than maxResultBytes, even one that is small in memory', async () => {
    const sandbox = await started();
    for (const expression of [
      '$pad("", 5000)',
      '[1..1000]',
      '[1..100].{"key": $, "text": "0123456789012345678901234567890123456789"}',
      // One object shared 2^40 times: a few bytes in memory, exponential as JSON.
      '($f := function($a, $n){ $n = 0 ? $a : $f({"l": $a, "r": $a}, $n - 1) }; $f([1], 40))',
    ]) {
      const err = await outcome(sandbox.evaluate('ws', expression, {}));
      expect(err).toBeInstanceOf(ExpressionLimitError);
      expect((err as Error).message).toBe('expression result exceeded the limit of 4096 bytes');
    }
    // Just under the limit passes: 4094 characters and two quotes.
    await expect(sandbox.evaluate('ws', '$pad("", 4094, "x")', {})).resolves.toHaveLength(4094);
  });

  it('stops a doubling string or sequence as soon as it crosses its cap', async () => {
    const sandbox = await started();
    for (const [expression, message] of [
      [
        '($f := function($s){ $f($s & $s) }; $f("ab"))',
        `expression built a string longer than ${MAX_STRING_LENGTH} characters`,
      ],
      [
        '$reduce([1..40], function($acc, $v){ $acc & $acc }, "xy")',
        `expression built a string longer than ${MAX_STRING_LENGTH} characters`,
      ],
      [
        '($f := function($a){ $f($append($a, $a)) }; $f([1, 2]))',
        'expression built a sequence longer than 1000000 items',
      ],
      ['[1..100000000]', 'expression built a sequence longer than 1000000 items'],
    ]) {
      const err = await outcome(sandbox.evaluate('ws', expression, {}));
      expect(err).toBeInstanceOf(ExpressionLimitError);
      expect((err as Error).message).toBe(message);
    }
  });

  it('takes turns across workspaces: one backlog does not hold another workspace back', async () => {
    const sandbox = await started({ workers: 1 });
    const order: string[] = [];
    const submit = (workspace: string, label: string) =>
      sandbox.evaluate(workspace, `"${label}"`, {}).then((v) => order.push(v as string));
    // The first goes straight to the idle worker; the rest queue in this order.
    await Promise.all([
      submit('a', 'a1'),
      submit('a', 'a2'),
      submit('a', 'a3'),
      submit('a', 'a4'),
      submit('b', 'b1'),
      submit('b', 'b2'),
      submit('c', 'c1'),
    ]);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']);
  });

  it('hands results back together once the pool falls idle, and a lone result at once', async () => {
    // A window far longer than the test: only "the pool is idle" can deliver the results.
    const sandbox = await started({ workers: 2, settleWindowMs: 600_000 });
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    tick();
    try {
      const turns = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          sandbox.evaluate(`ws-${i % 3}`, `${i} * 2`, {}).then((v) => [v, turn]),
        ),
      );
      expect(turns.map(([v]) => v)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
      // Every result in the same turn of the event loop: the executor records them in one batch.
      expect(new Set(turns.map(([, t]) => t)).size).toBe(1);
      await expect(sandbox.evaluate('ws', '"alone"', {})).resolves.toBe('alone');
    } finally {
      ticking = false;
    }
  });

  it('starts the budget when a worker starts the evaluation, not when it was queued', async () => {
    const sandbox = await started({ workers: 1 });
    // Queued behind a spin that is killed at 1000 ms, longer than the budget of 500 ms.
    const [spin, queued] = await Promise.all([
      outcome(sandbox.evaluate('a', SPIN, {})),
      outcome(sandbox.evaluate('b', '$sum([1..100])', {})),
    ]);
    expect((spin as Error).message).toBe('expression exceeded its time budget of 500 ms');
    expect(queued).toBe(5050);
  });

  it('shuts down without waiting for a spinning evaluation, rejecting what is queued', async () => {
    const sandbox = await started({ workers: 1, timeoutMs: 30_000 });
    const pids = sandbox.pids();
    const spinning = outcome(sandbox.evaluate('a', SPIN, {}));
    const queued = outcome(sandbox.evaluate('b', '1', {}));
    const closedAt = Date.now();
    await sandbox.close();
    // Far less than the 30 s budget of the spinning evaluation.
    expect(Date.now() - closedAt).toBeLessThan(10_000);
    for (const err of [await spinning, await queued]) {
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(ExpressionError);
      expect((err as Error).message).toBe('expression sandbox is shut down');
    }
    expect(pids.filter(alive)).toEqual([]);
    await expect(sandbox.evaluate('a', '1', {})).rejects.toThrow('expression sandbox is shut down');
  });

  it('hands back the results it holds when it shuts down', async () => {
    const sandbox = await started({ workers: 2, timeoutMs: 30_000, settleWindowMs: 600_000 });
    const spinning = outcome(sandbox.evaluate('a', SPIN, {}));
    const quick = sandbox.evaluate('b', '"done before the shutdown"', {});
    // Done, but held back while the other worker is still busy.
    await waitFor('the quick result to be held', () =>
      sandbox.stats().held === 1 ? true : undefined,
    );
    await sandbox.close();
    await expect(quick).resolves.toBe('done before the shutdown');
    expect(((await spinning) as Error).message).toBe('expression sandbox is shut down');
  });

  it('leaves no worker behind when the service process is killed (SIGKILL)', async () => {
    // A service process of its own, running the built sandbox, that prints its workers' pids.
    const service = spawn(
      process.execPath,
      [
        '-e',
        `const { ExpressionSandbox } = require(${JSON.stringify(path.join(path.dirname(workerScript()), 'expression-sandbox.js'))});
         const sandbox = new ExpressionSandbox(${JSON.stringify(BASE)});
         sandbox.start().then(() => console.log(JSON.stringify(sandbox.pids())));
         setInterval(() => undefined, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const pids = await waitFor('the workers to start', () =>
      output.includes('\n') ? (JSON.parse(output) as number[]) : undefined,
    );
    expect(pids).toHaveLength(BASE.workers);
    expect(pids.every(alive)).toBe(true);
    service.kill('SIGKILL');
    await waitFor('the orphaned workers to exit', () => (pids.some(alive) ? undefined : true));
  });

  it('names a missing worker script at start', async () => {
    const sandbox = new ExpressionSandbox(BASE, '/nonexistent/expression-worker.js');
    await expect(sandbox.start()).rejects.toThrow(
      'expression sandbox worker not found at /nonexistent/expression-worker.js',
    );
  });

  it('starts its workers at the first evaluation when it was not started', async () => {
    const sandbox = new ExpressionSandbox(BASE);
    sandboxes.push(sandbox);
    expect(sandbox.stats().workers).toBe(0);
    await expect(sandbox.evaluate('ws', '"lazy"', {})).resolves.toBe('lazy');
    expect(sandbox.stats().workers).toBe(BASE.workers);
  });

  it('cuts an error message to its maximum before sending it back', async () => {
    const sandbox = await started();
    const err = await outcome(sandbox.evaluate('ws', '$error($pad("", 9000000, "x"))', {}));
    expect(err).toBeInstanceOf(ExpressionError);
    const message = (err as Error).message;
    // Compared by length and ends: a failure must not print the 9 MB message.
    expect(message.length).toBe(MAX_ERROR_MESSAGE_CHARS);
    expect(message.slice(-20)).toBe('xxxxxxx… (truncated)');
    expect(message.startsWith('x'.repeat(MAX_ERROR_MESSAGE_CHARS - 20))).toBe(true);
    // A message within the maximum is left whole.
    const short = await outcome(sandbox.evaluate('ws', '$error($pad("", 4000, "y"))', {}));
    expect((short as Error).message).toBe('y'.repeat(4000));
  });

  it('drops a queued evaluation whose signal fires, at once', async () => {
    const sandbox = await started({ workers: 1, timeoutMs: 30_000 });
    const spinning = outcome(sandbox.evaluate('a', SPIN, {}));
    const controller = new AbortController();
    const queued = outcome(sandbox.evaluate('b', '1', { big: 'state' }, {}, controller.signal));
    expect(sandbox.stats()).toMatchObject({ busy: 1, queued: 1 });
    controller.abort(new Error('step timed out after 100 ms'));
    // Rejected while the only worker is still spinning: nothing waited for a worker.
    const err = await queued;
    expect(err).toBeInstanceOf(ExpressionCancelledError);
    expect((err as Error).message).toBe(
      'expression evaluation cancelled: step timed out after 100 ms',
    );
    expect(sandbox.stats()).toMatchObject({ busy: 1, queued: 0 });
    // A signal that already fired is refused without queueing.
    await expect(sandbox.evaluate('b', '1', {}, {}, controller.signal)).rejects.toBeInstanceOf(
      ExpressionCancelledError,
    );
    expect(sandbox.stats().queued).toBe(0);
    await sandbox.close();
    await spinning;
  });

  it('kills and replaces the worker of a running evaluation whose signal fires', async () => {
    const sandbox = await started({ workers: 1, timeoutMs: 30_000 });
    const [before] = sandbox.pids();
    const controller = new AbortController();
    const spinning = outcome(sandbox.evaluate('a', SPIN, {}, {}, controller.signal));
    const next = sandbox.evaluate('b', '"next"', {});
    await waitFor('the spin to run', () => (sandbox.stats().busy === 1 ? true : undefined));
    controller.abort();
    expect(await spinning).toBeInstanceOf(ExpressionCancelledError);
    // The queued evaluation runs on the replacement, long before the 30 s budget of the spin.
    await expect(next).resolves.toBe('next');
    expect(sandbox.pids()).toHaveLength(1);
    expect(sandbox.pids()).not.toContain(before);
    await waitFor('the aborted worker to exit', () => (alive(before) ? undefined : true));
  });

  it('caps the evaluations one workspace may queue, with a retryable error', async () => {
    const sandbox = await started({ workers: 1, timeoutMs: 30_000, maxQueuedPerWorkspace: 2 });
    const spinning = outcome(sandbox.evaluate('a', SPIN, {}));
    const queued = [
      outcome(sandbox.evaluate('a', '1', {})),
      outcome(sandbox.evaluate('a', '2', {})),
    ];
    const err = await outcome(sandbox.evaluate('a', '3', {}));
    expect(err).toBeInstanceOf(ExpressionSandboxUnavailableError);
    expect(err).not.toBeInstanceOf(ExpressionError);
    expect((err as Error).message).toBe(
      'expression sandbox queue of this workspace is full (2 evaluations waiting); retry later',
    );
    // Another workspace has a queue of its own.
    const other = outcome(sandbox.evaluate('b', '4', {}));
    expect(sandbox.stats().queued).toBe(3);
    await sandbox.close();
    await Promise.all([spinning, ...queued, other]);
  });

  it('runs an evaluation again once when its worker is killed by someone else', async () => {
    const sandbox = await started({ workers: 1, timeoutMs: 30_000 });
    const [first] = sandbox.pids();
    // Runs for a second or so: long enough to be killed while it runs.
    const result = sandbox.evaluate('ws', '$count($distinct([1..50000]))', {});
    await waitFor('the evaluation to run', () => (sandbox.stats().busy === 1 ? true : undefined));
    process.kill(first, 'SIGKILL');
    await expect(result).resolves.toBe(50000);
    expect(sandbox.pids()).not.toContain(first);

    // Only once: killed again on its second worker, it fails.
    const twice = outcome(sandbox.evaluate('ws', SPIN, {}));
    for (let kill = 0; kill < 2; kill++) {
      const pid = await waitFor('a worker to run it', () => {
        const [p] = sandbox.pids();
        return sandbox.stats().busy === 1 && p !== undefined && alive(p) ? p : undefined;
      });
      process.kill(pid, 'SIGKILL');
      await waitFor('the killed worker to be gone', () =>
        sandbox.pids().includes(pid) ? undefined : true,
      );
    }
    expect(((await twice) as Error).message).toBe(
      'expression evaluation crashed its sandbox worker',
    );
  });

  it('survives a spawn that throws, rejecting what waits once no worker is ready for too long', async () => {
    const sandbox = await started({ workers: 1, bootTimeoutMs: 300 });
    const [pid] = sandbox.pids();
    // The host cannot make processes: fork throws (as it does with ENOMEM or EAGAIN).
    const fork = jest.spyOn(childProcess, 'fork').mockImplementation(() => {
      throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM' });
    });
    process.kill(pid, 'SIGKILL');
    await waitFor('the replacement to be attempted', () =>
      fork.mock.calls.length > 0 ? true : undefined,
    );
    // Queued with no worker: rejected, retryably, once none has been ready for bootTimeoutMs.
    const err = await outcome(sandbox.evaluate('ws', '1', {}));
    expect(err).toBeInstanceOf(ExpressionSandboxUnavailableError);
    expect((err as Error).message).toBe(
      'expression sandbox has had no worker ready for 300 ms; retry later',
    );
    // Spawns are retried: once fork works again, so does the sandbox.
    fork.mockRestore();
    await waitFor('a replacement worker', () => (sandbox.pids().length === 1 ? true : undefined));
    await waitFor('evaluations to be taken again', () =>
      sandbox.evaluate('ws', '"back"', {}).then((v) => (v === 'back' ? true : undefined)),
    );
  });

  it('rejects what waited for a start that failed, rather than leaving it pending', async () => {
    const sandbox = new ExpressionSandbox(BASE, '/nonexistent/expression-worker.js');
    await expect(sandbox.evaluate('ws', '1', {})).rejects.toThrow(
      'expression sandbox is shut down',
    );
  });
});
