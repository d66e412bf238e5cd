import { ApiProperty } from '@nestjs/swagger';

export class LiveDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
}

export class HealthDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: ['up', 'down'], description: 'Whether the database answered within 2 s' })
  database: 'up' | 'down';
}

export class ReadyDto {
  @ApiProperty({ enum: ['ready'] }) status: 'ready';
  @ApiProperty({ enum: ['up'] }) database: 'up';
}
