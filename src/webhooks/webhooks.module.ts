import { Module } from '@nestjs/common';

/** Filled in by its own issue; registered in AppModule already so that work on it stays in this folder. */
@Module({})
export class WebhooksModule {}
