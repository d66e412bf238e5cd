import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ExpressionError, ExpressionLimitError } from '../common/jsonata';
import type { EvaluateRequest, WorkerLimits, WorkerMessage } from './sandbox-protocol';

export interface SandboxOptions {
  /** Worker processes, each evaluating one expression at a time. */
  workers: number;
  /** Budget of one evaluation, from the moment a worker starts it (JSONata's own check). */
  timeoutMs: number;
  /** Old-generation heap of each worker. */
  memoryMb: number;
  /** Largest result, as JSON, a worker sends back. */
  maxResultBytes: number;
  /** How long results may wait to be handed back together (default SETTLE_WINDOW_MS). */
  settleWindowMs?: number;
  /** Evaluations one workspace may have waiting (default MAX_QUEUED_PER_WORKSPACE). */
  maxQueuedPerWorkspace?: number;
  /**
   * How long a worker may take to start, and how long the pool may go without any worker ready
   * before what is queued is rejected (default BOOT_TIMEOUT_MS).
   */
  bootTimeoutMs?: number;
}

/**
 * An evaluation the sandbox could not take or finish for now (queue full, no worker up): not the
 * expression's fault, so callers treat it as an ordinary, retryable failure.
 */
export class ExpressionSandboxUnavailableError extends Error {}

/** The caller's AbortSignal fired (step timeout, run cancelled, shutdown) before a result came. */
export class ExpressionCancelledError extends Error {}

/**
 * A worker still busy this long after its budget is stuck in one native operation that JSONata's
 * own timeout check cannot interrupt (a huge `$join`, `$replace` or sort): it is killed.
 */
export const KILL_GRACE_MS = 500;
/**
 * Results are handed back together: at once when the pool falls idle, otherwise at most this long
 * after the first one. Workers answer one by one, but the executor's group commit writes the outcomes
 * of one event-loop turn in one statement; steps that finish a few hundred microseconds apart would
 * each pay a statement of their own (measured: PostgreSQL CPU per step x4, throughput -30%).
 */
export const SETTLE_WINDOW_MS = 2;
/**
 * A worker that has not said it is ready by then is considered broken; a pool with no worker ready
 * that long (every spawn failing) rejects what is queued rather than holding it forever.
 */
export const BOOT_TIMEOUT_MS = 15_000;
/**
 * Evaluations one workspace may have waiting for a worker. Each holds a copy of its run state, so
 * without a cap a burst (or a backlog behind spinning expressions) grows memory without bound; past
 * it `evaluate` rejects with ExpressionSandboxUnavailableError, which the step retries later.
 */
export const MAX_QUEUED_PER_WORKSPACE = 1000;
/**
 * Delay before replacing a worker that died before it was ready, or whose spawn threw (ENOMEM,
 * EAGAIN), so a broken install or an exhausted host is not retried in a tight loop.
 */
const RESPAWN_DELAY_MS = 1000;
/** Last bytes of a worker's stderr kept to tell why it died (V8 prints "heap out of memory"). */
const STDERR_TAIL = 4096;

/**
 * The compiled worker. Under ts-jest this module runs from `src/` as TypeScript, and a worker cannot
 * be: ts-node would recompile jsonata and our sources in every worker and every replacement (a second
 * or more each, on a path where a killed worker is replaced at once), and it is one more thing that
 * must load. So from `.ts` we use the build in `dist/`, which `npm test` makes first (`pretest`) and
 * which the e2e setup needs anyway (it runs `dist/database/migrate.js`). `start()` names the file when
 * it is missing.
 */
export function workerScript(): string {
  const here = __filename.endsWith('.ts')
    ? path.resolve(__dirname, '..', '..', 'dist', 'expressions')
    : __dirname;
  return path.join(here, 'expression-worker.js');
}

interface Task {
  workspaceId: string;
  expression: string;
  input: unknown;
  bindings: Record<string, unknown>;
  /** Settle the caller's promise (and stop listening to its signal). */
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** Already run once on a worker that died under it, not by our hand: not retried again. */
  retried?: boolean;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  running?: { id: number; task: Task; timer: NodeJS.Timeout };
  /** Why we killed it, when we did. */
  killedFor?: 'time' | 'shutdown' | 'abort';
  stderr: string;
  exited: Promise<void>;
}

/**
 * Evaluates tenant JSONata where a runaway expression can be stopped and cannot take the service with
 * it: a pool of warm worker processes, each with a capped heap, each evaluating one expression at a
 * time, killed past its budget and replaced. Processes rather than `worker_threads`: a thread's
 * `resourceLimits` do not cover one allocation past the limit inside a builtin (`$pad("", 4e8)`, a
 * `$replace` or `$join` that multiplies a string, `JSON.stringify` of a large result). V8 then aborts
 * the whole process, which is the crash this sandbox exists to prevent; a child process dies alone.
 *
 * The queue is fair across workspaces: the next free worker takes the oldest evaluation of the next
 * workspace in turn (round robin), so one tenant's backlog of slow expressions delays another
 * tenant's by at most one evaluation per worker.
 */
export class ExpressionSandbox {
  private readonly workers = new Set<Worker>();
  /** Pending evaluations per workspace; the Map's order is the round-robin turn. */
  private readonly queues = new Map<string, Task[]>();
  private nextId = 1;
  private starting?: Promise<void>;
  private readonly settled: Array<() => void> = [];
  private settleTimer?: NodeJS.Timeout;
  private closed = false;
  private readonly limits: WorkerLimits;
  private readonly maxQueued: number;
  private readonly bootTimeoutMs: number;
  /** Runs while the started pool has no worker ready; when it fires, `unavailable` is set. */
  private noWorkerTimer?: NodeJS.Timeout;
  /** No worker has been ready for bootTimeoutMs: evaluations fail at once until one is. */
  private unavailable = false;

  constructor(
    private readonly options: SandboxOptions,
    private readonly script = workerScript(),
  ) {
    this.limits = { timeoutMs: options.timeoutMs, maxResultBytes: options.maxResultBytes };
    this.maxQueued = options.maxQueuedPerWorkspace ?? MAX_QUEUED_PER_WORKSPACE;
    this.bootTimeoutMs = options.bootTimeoutMs ?? BOOT_TIMEOUT_MS;
  }

  /**
   * Starts every worker and waits until each is ready (warm), so the first evaluation pays nothing.
   * Without it, the first evaluation starts them.
   */
  start(): Promise<void> {
    this.starting ??= this.boot();
    return this.starting;
  }

  private async boot(): Promise<void> {
    try {
      if (!existsSync(this.script)) {
        throw new Error(
          `expression sandbox worker not found at ${this.script}: run "npm run build" first`,
        );
      }
      await Promise.all(Array.from({ length: this.options.workers }, () => this.spawn()));
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /**
   * Evaluates `expression` against `input` in a worker. Resolves with plain JSON data (functions as
   * null; undefined when nothing matched). Rejects with an ExpressionLimitError when a limit stopped
   * it, an ExpressionError for an ordinary JSONata error, an ExpressionSandboxUnavailableError when
   * the workspace's queue is full or no worker could be started, an ExpressionCancelledError when
   * `signal` fired, or a plain Error when the sandbox is closed.
   *
   * `signal` is the step's: once it fires nobody awaits the result, so a queued evaluation is dropped
   * (it holds a copy of the run state) and a running one has its worker killed and replaced (the
   * worker would otherwise spend up to its whole budget on it while other evaluations wait).
   */
  evaluate(
    workspaceId: string,
    expression: string,
    input: unknown,
    bindings: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('expression sandbox is shut down'));
    if (signal?.aborted) return Promise.reject(cancelled(signal));
    if (this.unavailable) return Promise.reject(this.unavailableError());
    const queue = this.queues.get(workspaceId) ?? [];
    if (queue.length >= this.maxQueued) {
      return Promise.reject(
        new ExpressionSandboxUnavailableError(
          `expression sandbox queue of this workspace is full (${this.maxQueued} evaluations waiting); retry later`,
        ),
      );
    }
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = (): void => this.abort(task, cancelled(signal!));
      const task: Task = {
        workspaceId,
        expression,
        input,
        bindings,
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(task);
      if (queue.length === 1) this.queues.set(workspaceId, queue);
      // Not started yet: start now. A start that fails rejects what was queued (close() does).
      if (!this.starting) this.start().catch(() => undefined);
      this.dispatch();
    });
  }

  /** The caller gave up on `task`: drop it from its queue, or stop the worker running it. */
  private abort(task: Task, err: Error): void {
    const queue = this.queues.get(task.workspaceId);
    const index = queue?.indexOf(task) ?? -1;
    if (queue && index >= 0) {
      queue.splice(index, 1);
      if (queue.length === 0) this.queues.delete(task.workspaceId);
    } else {
      const worker = [...this.workers].find((w) => w.running?.task === task);
      // Neither queued nor running: its result is already held for the next hand-back.
      if (!worker) return;
      clearTimeout(worker.running!.timer);
      worker.running = undefined;
      // Marked, it takes no more work; its 'close' replaces it.
      worker.killedFor = 'abort';
      worker.child.kill('SIGKILL');
      this.watchAvailability();
    }
    task.reject(err);
  }

  /** Process ids of the live workers (for tests and diagnostics). */
  pids(): number[] {
    return [...this.workers].map((w) => w.child.pid).filter((pid): pid is number => !!pid);
  }

  /** Live workers, those evaluating, evaluations queued, and results held for the next hand-back. */
  stats(): { workers: number; busy: number; queued: number; held: number } {
    const workers = [...this.workers];
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return {
      workers: workers.length,
      busy: workers.filter((w) => w.running).length,
      queued,
      held: this.settled.length,
    };
  }

  /**
   * Hands back the results it holds, rejects what is queued, kills every worker (an evaluation in
   * flight is cut short: shutdown must not wait for a spinning expression) and resolves once they
   * have exited.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.noWorkerTimer);
    this.deliverSettled();
    this.rejectQueued(new Error('expression sandbox is shut down'));
    const exits = [...this.workers].map((w) => {
      w.killedFor = 'shutdown';
      w.child.kill('SIGKILL');
      return w.exited;
    });
    await Promise.all(exits);
  }

  private rejectQueued(err: Error): void {
    const queues = [...this.queues.values()];
    this.queues.clear();
    for (const queue of queues) for (const task of queue) task.reject(err);
  }

  private unavailableError(): ExpressionSandboxUnavailableError {
    return new ExpressionSandboxUnavailableError(
      `expression sandbox has had no worker ready for ${this.bootTimeoutMs} ms; retry later`,
    );
  }

  /**
   * Keeps a watch on a started pool with no worker ready (all dead, replacements failing): past
   * bootTimeoutMs, what is queued is rejected and new evaluations fail at once, rather than waiting
   * for a worker that may never come. The first worker ready ends it.
   */
  private watchAvailability(): void {
    const anyReady = [...this.workers].some((w) => w.ready && !w.killedFor);
    if (anyReady || this.closed) {
      clearTimeout(this.noWorkerTimer);
      this.noWorkerTimer = undefined;
      this.unavailable = false;
      return;
    }
    if (this.noWorkerTimer || this.unavailable || !this.starting) return;
    this.noWorkerTimer = setTimeout(() => {
      this.noWorkerTimer = undefined;
      this.unavailable = true;
      this.rejectQueued(this.unavailableError());
    }, this.bootTimeoutMs);
    this.noWorkerTimer.unref();
  }

  /** Tries `spawn` again later; used where nobody awaits the spawn (a replacement). */
  private respawnLater(): void {
    if (this.closed) return;
    setTimeout(() => void this.spawn().catch(() => undefined), RESPAWN_DELAY_MS).unref();
  }

  private spawn(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('expression sandbox is shut down'));
    let child: ChildProcess;
    try {
      child = fork(this.script, [JSON.stringify(this.limits)], {
        // Not the parent's flags (a test runner's, an inspector's) and not its environment (secrets):
        // a worker needs neither, only where the service finds its packages when NODE_PATH says so.
        execArgv: [`--max-old-space-size=${this.options.memoryMb}`],
        env: process.env.NODE_PATH === undefined ? {} : { NODE_PATH: process.env.NODE_PATH },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
      });
    } catch (err) {
      // fork throws synchronously when the host cannot make a process (ENOMEM, EAGAIN). Called from
      // a 'close' handler or a timer, that would be an uncaught exception in the service: retry later
      // instead (boot, which awaits this, fails and closes the sandbox, so nothing is retried there).
      this.respawnLater();
      this.watchAvailability();
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    let onReady: () => void = () => undefined;
    let onBootFailure: (err: Error) => void = () => undefined;
    const booted = new Promise<void>((resolve, reject) => {
      onReady = resolve;
      onBootFailure = reject;
    });
    const worker: Worker = {
      child,
      ready: false,
      stderr: '',
      exited: new Promise((resolve) => child.once('close', () => resolve())),
    };
    this.workers.add(worker);
    this.watchAvailability();
    const bootTimer = setTimeout(() => {
      onBootFailure(
        new Error(`expression sandbox worker not ready after ${this.bootTimeoutMs} ms`),
      );
      child.kill('SIGKILL');
    }, this.bootTimeoutMs);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      worker.stderr = (worker.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        clearTimeout(bootTimer);
        worker.ready = true;
        onReady();
        this.watchAvailability();
        this.dispatch();
      } else {
        this.settle(worker, message);
      }
    });
    // Errors of the channel (a send to a worker that just died) end in 'exit' too.
    child.on('error', () => undefined);
    // 'close', not 'exit': it comes once stderr is read to its end, which may say why it died.
    child.once('close', (code, signal) => {
      clearTimeout(bootTimer);
      this.workers.delete(worker);
      const wasReady = worker.ready;
      if (!wasReady) {
        onBootFailure(
          new Error(
            `expression sandbox worker exited while starting (${signal ?? `code ${code}`}): ${worker.stderr.trim()}`,
          ),
        );
      }
      const running = worker.running;
      worker.running = undefined;
      if (running) {
        clearTimeout(running.timer);
        const err = this.deathError(worker);
        // Not killed by us and not its own heap: the OS (or an operator) killed it, or it failed
        // on its own. The evaluation is likely innocent (it may have just been handed over): it runs
        // again, first in its workspace's line, once. A second death fails it.
        const innocent =
          !worker.killedFor &&
          !(err instanceof OutOfMemory) &&
          !running.task.retried &&
          !this.closed;
        if (innocent) {
          running.task.retried = true;
          const queue = this.queues.get(running.task.workspaceId);
          if (queue) queue.unshift(running.task);
          else this.queues.set(running.task.workspaceId, [running.task]);
        } else {
          running.task.reject(err);
        }
      }
      if (this.closed) return;
      this.watchAvailability();
      // Replace it, at once unless it never came up (then slowly: the cause may be permanent).
      if (wasReady) void this.spawn().catch(() => undefined);
      else this.respawnLater();
      // A requeued evaluation may go to another worker that is free now.
      this.dispatch();
    });
    return booted;
  }

  /** Gives free workers the next evaluations, one workspace after another. */
  private dispatch(): void {
    for (const worker of this.workers) {
      if (this.queues.size === 0) return;
      if (!worker.ready || worker.running || worker.killedFor) continue;
      // Dead already, its 'close' not yet come (that waits for stderr to end): a task handed over
      // now would fail with it.
      if (!worker.child.connected) continue;
      const [workspaceId, queue] = this.queues.entries().next().value as [string, Task[]];
      const task = queue.shift()!;
      // Its turn is used: the workspace goes to the back of the line, or leaves it.
      this.queues.delete(workspaceId);
      if (queue.length > 0) this.queues.set(workspaceId, queue);
      this.run(worker, task);
    }
  }

  private run(worker: Worker, task: Task): void {
    const id = this.nextId++;
    // The budget starts now, when a worker starts the evaluation, not when it was queued.
    const timer = setTimeout(() => {
      worker.killedFor = 'time';
      worker.child.kill('SIGKILL');
      this.watchAvailability();
    }, this.options.timeoutMs + KILL_GRACE_MS);
    worker.running = { id, task, timer };
    const request: EvaluateRequest = {
      id,
      expression: task.expression,
      input: task.input,
      bindings: task.bindings,
    };
    worker.child.send(request);
  }

  private settle(worker: Worker, message: Exclude<WorkerMessage, { ready: true }>): void {
    const running = worker.running;
    if (!running || running.id !== message.id) return;
    clearTimeout(running.timer);
    worker.running = undefined;
    const { task } = running;
    this.settled.push(() => {
      if (message.ok) task.resolve(message.value);
      else if (message.limit) task.reject(new ExpressionLimitError(message.message));
      else task.reject(new ExpressionError(message.message));
    });
    this.dispatch();
    const busy = this.queues.size > 0 || [...this.workers].some((w) => w.running);
    if (!busy) this.deliverSettled();
    else {
      this.settleTimer ??= setTimeout(
        () => this.deliverSettled(),
        this.options.settleWindowMs ?? SETTLE_WINDOW_MS,
      );
    }
  }

  private deliverSettled(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    for (const settle of this.settled.splice(0)) settle();
  }

  /** Why the evaluation a worker was running ended with the worker. */
  private deathError(worker: Worker): Error {
    if (worker.killedFor === 'shutdown') return new Error('expression sandbox is shut down');
    if (worker.killedFor === 'time') {
      return new ExpressionLimitError(
        `expression exceeded its time budget of ${this.options.timeoutMs} ms`,
      );
    }
    if (/out of memory|invalid size error|allocation failed/i.test(worker.stderr)) {
      return new OutOfMemory(`expression exceeded its memory limit of ${this.options.memoryMb} MB`);
    }
    return new ExpressionLimitError('expression evaluation crashed its sandbox worker');
  }
}

/** A worker's death by its own heap: the evaluation's fault, so it is not run again. */
class OutOfMemory extends ExpressionLimitError {}

function cancelled(signal: AbortSignal): ExpressionCancelledError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? `: ${reason.message}` : '';
  return new ExpressionCancelledError(`expression evaluation cancelled${why}`, { cause: reason });
}
