import { Module } from '@nestjs/common';
import { GreetHandler } from './greet.handler';

/** The service loads the default export of each module named in EXTENSION_MODULES. */
@Module({ providers: [GreetHandler] })
export default class GreetingModule {}
