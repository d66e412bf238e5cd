import { ConfigError, loadConfig } from '../config/app-config';
import type { TracingHandle } from './sdk';

/**
 * Imported first by src/main.ts, before any module that loads `http`, `express` or `pg`: the
 * instrumentations must patch those modules before anyone else requires them. With no OTLP endpoint
 * configured nothing else happens, and the SDK (./sdk and the OpenTelemetry packages behind it) is
 * never loaded. A configuration that does not validate is left to main.ts to report.
 */
function start(): TracingHandle | undefined {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  if (!config.tracing) return undefined;
  // A synchronous require on purpose: an `import()` would resolve after main.ts has loaded the rest.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as typeof import('./sdk');
  return sdk.startTracing(config.tracing, config.logLevel);
}

const handle = start();

/** Tracing as started by this process; undefined when it is off. */
export function tracing(): TracingHandle | undefined {
  return handle;
}
