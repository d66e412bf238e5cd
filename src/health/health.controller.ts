import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth';
import { Database } from '../common/database';
import { ServiceUnavailableError } from '../common/errors';
import { ApiEnvelope, ApiErrorResponses } from '../common/swagger';
import { HealthDto, LiveDto, ReadyDto } from './health.dto';

/** Kubernetes probes: no authentication, no rate limit. */
@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(private readonly db: Database) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiEnvelope(LiveDto)
  live(): LiveDto {
    return { status: 'ok' };
  }

  @Get('health')
  @ApiOperation({
    summary: 'Health: the process answers; whether the database does',
    description: 'Always 200 while the process answers; `database` says whether it is reachable.',
  })
  @ApiEnvelope(HealthDto)
  @ApiErrorResponses(500)
  async health(): Promise<HealthDto> {
    return { status: 'ok', database: (await this.databaseUp()) ? 'up' : 'down' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 503 in the error envelope while the database is down' })
  @ApiEnvelope(ReadyDto)
  @ApiErrorResponses(500, 503)
  async ready(): Promise<ReadyDto> {
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
