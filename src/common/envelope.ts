import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PageMeta {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 }) page: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 20 }) pageSize: number;
  @ApiProperty({ type: 'integer', minimum: 0, example: 42 }) total: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'ceil(total / pageSize)', example: 3 })
  totalPages: number;
}

function pageMeta(page: number, pageSize: number, total: number): PageMeta {
  return { page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
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
    this.meta = pageMeta(page, pageSize, total);
  }
}

/**
 * Data the database already wrote as JSON text (`json`: an array for a page, an object for one item):
 * the envelope interceptor sends it as is inside the envelope, rather than rows being parsed into
 * objects only to be written back (README "Responses and errors": the hot reads of runs).
 */
export class JsonData {
  readonly meta?: PageMeta;

  constructor(
    readonly json: string,
    page?: { page: number; pageSize: number; total: number },
  ) {
    if (page) this.meta = pageMeta(page.page, page.pageSize, page.total);
  }
}

export class FieldErrorDto {
  @ApiProperty({
    example: 'steps[2].handler',
    description: 'Path of the field; `body` for the whole body',
  })
  field: string;
  @ApiProperty({ example: 'handler must be a string' }) message: string;
}

export class LimitDto {
  @ApiProperty({ example: 'MAX_RUN_INPUT_BYTES' }) name: string;
  @ApiProperty({ type: 'integer', example: 262144 }) value: number;
}

export class ErrorDetails {
  @ApiPropertyOptional({
    type: [FieldErrorDto],
    description: 'Every problem found (400, 409, 413)',
  })
  errors?: FieldErrorDto[];
  @ApiPropertyOptional({
    type: LimitDto,
    description:
      'The storage limit that was passed (409, 413), or the cap on open event streams (429)',
  })
  limit?: LimitDto;
}

export class ErrorBody {
  @ApiProperty({ example: 'VALIDATION_ERROR' }) code: string;
  @ApiProperty({ example: 'name: must be between 1 and 100 characters' }) message: string;
  @ApiPropertyOptional({ type: ErrorDetails }) details?: ErrorDetails;
}

export class ErrorEnvelope {
  @ApiProperty({ type: 'boolean', enum: [false], example: false }) success: false;
  @ApiProperty({ type: ErrorBody }) error: ErrorBody;
}
