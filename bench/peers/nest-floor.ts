/**
 * The framework floor of scenario 4: a bare Nest application on Express (the stack the service is
 * built on) with one GET route answering a small JSON object, nothing else (no guard, interceptor,
 * pipe, logger or database). Listens on 127.0.0.1 at the port in argv[2] and prints `LISTENING` once
 * it accepts connections; stops on SIGTERM.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Controller()
class FloorController {
  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(FloorModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.argv[2]), '127.0.0.1');
  process.stdout.write('LISTENING\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
