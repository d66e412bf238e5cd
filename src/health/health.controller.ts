import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth';
import { Database } from '../common/database';
import { ServiceUnavailableError } from '../common/errors';

/** Kubernetes probes: no authentication, no rate limit. */
@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(private readonly db: Database) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health')
  @ApiOperation({ summary: 'Health: the process answers and the database is reachable' })
  async health(): Promise<{ status: string; database: string }> {
    return { status: 'ok', database: (await this.databaseUp()) ? 'up' : 'down' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 503 in the error envelope while the database is down' })
  async ready(): Promise<{ status: string; database: string }> {
    if (!(await this.databaseUp())) throw new ServiceUnavailableError('database unavailable');
    return { status: 'ready', database: 'up' };
  }

  private async databaseUp(): Promise<boolean> {
    try {
      await Promise.race([
        this.db.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return true;
    } catch {
      return false;
    }
  }
}
