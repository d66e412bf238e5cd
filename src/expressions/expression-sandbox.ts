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
}

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
/** A worker that has not said it is ready by then is considered broken. */
const BOOT_TIMEOUT_MS = 15_000;
/** Delay before replacing a worker that died before it was ready, so a broken install cannot spin. */
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
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  running?: { id: number; task: Task; timer: NodeJS.Timeout };
  /** Why we killed it, when we did. */
  killedFor?: 'time' | 'shutdown';
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

  constructor(
    private readonly options: SandboxOptions,
    private readonly script = workerScript(),
  ) {
    this.limits = { timeoutMs: options.timeoutMs, maxResultBytes: options.maxResultBytes };
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
   * it, an ExpressionError for an ordinary JSONata error, or a plain Error when the sandbox is closed.
   */
  evaluate(
    workspaceId: string,
    expression: string,
    input: unknown,
    bindings: Record<string, unknown> = {},
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('expression sandbox is shut down'));
    return new Promise<unknown>((resolve, reject) => {
      const task: Task = { workspaceId, expression, input, bindings, resolve, reject };
      const queue = this.queues.get(workspaceId);
      if (queue) queue.push(task);
      else this.queues.set(workspaceId, [task]);
      // Not started yet: start now. A start that fails rejects what was queued (close() does).
      if (!this.starting) this.start().catch(() => undefined);
      this.dispatch();
    });
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
    this.deliverSettled();
    for (const queue of this.queues.values()) {
      for (const task of queue) task.reject(new Error('expression sandbox is shut down'));
    }
    this.queues.clear();
    const exits = [...this.workers].map((w) => {
      w.killedFor = 'shutdown';
      w.child.kill('SIGKILL');
      return w.exited;
    });
    await Promise.all(exits);
  }

  private spawn(): Promise<void> {
    const child = fork(this.script, [JSON.stringify(this.limits)], {
      // Not the parent's flags (a test runner's, an inspector's) and not its environment (secrets):
      // a worker needs neither, only where the service finds its packages when NODE_PATH says so.
      execArgv: [`--max-old-space-size=${this.options.memoryMb}`],
      env: process.env.NODE_PATH === undefined ? {} : { NODE_PATH: process.env.NODE_PATH },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
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
    const bootTimer = setTimeout(() => {
      onBootFailure(new Error(`expression sandbox worker not ready after ${BOOT_TIMEOUT_MS} ms`));
      child.kill('SIGKILL');
    }, BOOT_TIMEOUT_MS);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      worker.stderr = (worker.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        clearTimeout(bootTimer);
        worker.ready = true;
        onReady();
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
      if (worker.running) {
        clearTimeout(worker.running.timer);
        worker.running.task.reject(this.deathError(worker));
        worker.running = undefined;
      }
      if (this.closed) return;
      // Replace it, at once unless it never came up (then slowly: the cause may be permanent).
      if (wasReady) void this.spawn().catch(() => undefined);
      else setTimeout(() => void this.spawn().catch(() => undefined), RESPAWN_DELAY_MS).unref();
    });
    return booted;
  }

  /** Gives free workers the next evaluations, one workspace after another. */
  private dispatch(): void {
    for (const worker of this.workers) {
      if (this.queues.size === 0) return;
      if (!worker.ready || worker.running || worker.killedFor) continue;
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
      return new ExpressionLimitError(
        `expression exceeded its memory limit of ${this.options.memoryMb} MB`,
      );
    }
    return new ExpressionLimitError('expression evaluation crashed its sandbox worker');
  }
}
