import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';

@Module({
  imports: [ApiKeysModule, WorkspacesModule],
  controllers: [SessionsController],
  providers: [SessionsService],
})
export class SessionsModule {}
