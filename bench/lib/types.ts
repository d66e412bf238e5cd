/** Sizes of every scenario, each from a flag (see `bench/main.ts --help`). */
export interface BenchOptions {
  quick: boolean;
  /** Runs per throughput measurement (scenarios 1, 2, 6's re-run of 1(b), and 7). */
  runs: number;
  /** Requests in flight while creating runs over HTTP. */
  inFlight: number;
  /** Repetitions of each throughput measurement; the median is reported. */
  repeat: number;
  dispatchRuns: number;
  apiSeconds: number;
  apiConnections: number;
  parkRuns: number;
  scaleRuns: number;
  /** Sequential requests per query in the scale scenario. */
  scaleSamples: number;
  pgbenchSeconds: number;
  /** Items of the map run in scenario 10. */
  mapItems: number;
  /** Runs in the workspace while scenario 4 measures the run list. */
  listRuns: number;
  /** Scenario numbers to run (1-10); 2 also covers pgbench. */
  only: Set<number>;
  build: boolean;
  keepDatabases: boolean;
}

/** One measured throughput: runs completed per second over the measured span. */
export interface Throughput {
  runs: number;
  seconds: number;
  runsPerSec: number;
  stepsPerSec: number;
  /** Per-run latency in ms: creation to completion (1a), executor start to completion (1b). */
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU time per step of the executor process and of the PostgreSQL backends serving its database,
   * while it drained the runs (1(b) only; approximate: backends that come and go are missed).
   */
  cpuMsPerStep?: { service: number; postgres: number };
  /** WAL the database wrote per step: 1(a) from the first POST, 1(b) while the executor drained. */
  walBytesPerStep?: number;
}
