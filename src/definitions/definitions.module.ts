import { Module } from '@nestjs/common';
import { DefinitionsController } from './definitions.controller';
import { DefinitionsRepository } from './definitions.repository';
import { DefinitionsService } from './definitions.service';

@Module({
  controllers: [DefinitionsController],
  providers: [DefinitionsService, DefinitionsRepository],
  exports: [DefinitionsRepository],
})
export class DefinitionsModule {}
