import { ApiProperty } from '@nestjs/swagger';

export class PageMeta {
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 20 }) pageSize: number;
  @ApiProperty({ example: 42 }) total: number;
  @ApiProperty({ example: 3 }) totalPages: number;
}

/** A page of results; the envelope interceptor lifts `meta` beside `data`. */
export class Paginated<T> {
  readonly meta: PageMeta;

  constructor(
    readonly data: T[],
    page: number,
    pageSize: number,
    total: number,
  ) {
    this.meta = { page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
  }
}

export class ErrorBody {
  @ApiProperty({ example: 'VALIDATION_ERROR' }) code: string;
  @ApiProperty({ example: 'name: must be between 1 and 100 characters' }) message: string;
  @ApiProperty({ required: false, example: { errors: [{ field: 'name', message: '...' }] } })
  details?: Record<string, unknown>;
}

export class ErrorEnvelope {
  @ApiProperty({ example: false }) success: false;
  @ApiProperty({ type: ErrorBody }) error: ErrorBody;
}
