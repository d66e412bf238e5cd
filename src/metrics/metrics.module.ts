import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Server } from 'node:http';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { DatabaseGauges } from './database-gauges';
import { Metrics } from './metrics';
import { metricsServer } from './metrics-http';

/** Serves /metrics on METRICS_PORT, when set, from start-up to shutdown. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port } = this.config.metrics;
    if (!this.metrics.enabled || port === undefined) return;
    const server = metricsServer(this.metrics);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve());
    });
    this.server = server;
    this.logger.log(`metrics served on http://0.0.0.0:${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }
}

/** Metrics for every module: the registry and its families, the database-backed gauges, the port. */
@Global()
@Module({
  providers: [Metrics, DatabaseGauges, MetricsServer],
  exports: [Metrics],
})
export class MetricsModule {}
