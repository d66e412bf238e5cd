import { Module } from '@nestjs/common';
import { CostsController } from './costs.controller';
import { CostsRepository } from './costs.repository';
import { CostsService } from './costs.service';

/** Cost records (written by the LLM step) and the cost endpoints. */
@Module({
  controllers: [CostsController],
  providers: [CostsService, CostsRepository],
  exports: [CostsRepository],
})
export class CostsModule {}
