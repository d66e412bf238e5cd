import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExpressionsModule } from '../expressions/expressions.module';
import { HttpHandler } from './builtin/http.handler';
import { NoopHandler } from './builtin/noop.handler';
import { TransformHandler } from './builtin/transform.handler';
import { TaskHandlerRegistry } from './task-handler.registry';

@Module({
  imports: [DiscoveryModule, ExpressionsModule],
  providers: [TaskHandlerRegistry, NoopHandler, TransformHandler, HttpHandler],
  exports: [TaskHandlerRegistry],
})
export class HandlersModule {}
