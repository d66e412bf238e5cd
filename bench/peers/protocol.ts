import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Throughput } from '../lib/types';

/**
 * Each peer runs in its own Node process (like our service): the parent passes a PeerJob as JSON in
 * argv[2], the child prints one line `RESULT <json Throughput>` on stdout and exits.
 */
export interface PeerJob {
  url: string;
  /** a: submitted while the worker runs, 32 in flight; b: all submitted first, then the worker starts. */
  mode: 'a' | 'b';
  runs: number;
  inFlight: number;
  warmup: number;
  /** graphile-worker only: its batched preset (local queue, batched completion). */
  batched?: boolean;
}

export function printResult(t: Throughput): void {
  process.stdout.write(`RESULT ${JSON.stringify(t)}\n`);
}

export function parseJob(): PeerJob {
  return JSON.parse(process.argv[2]) as PeerJob;
}

/** Runs a peer script (compiled .js next to this file) in a child process; resolves its Throughput. */
export function runPeer(script: 'dbos' | 'graphile', job: PeerJob): Promise<Throughput> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(__dirname, `${script}.js`), JSON.stringify(job)],
      {
        env: { ...process.env, NODE_ENV: 'production' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice(7)) as Throughput);
      else
        reject(
          new Error(
            `peer ${script} (${job.mode}) exited with ${code}:\n${err}\n${out.slice(-2000)}`,
          ),
        );
    });
  });
}
