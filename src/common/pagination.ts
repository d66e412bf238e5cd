import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * The largest `page`: PostgreSQL's integer. Far past any list (a page beyond the last answers an empty
 * list), and the offset it gives, (page - 1) * pageSize, stays exact in a JavaScript number and within
 * PostgreSQL's bigint; `?page=99999999999999999999` is 400 naming `page`, not a failed query.
 */
export const MAX_PAGE = 2_147_483_647;

/**
 * A query integer written in plain decimal digits becomes a number; anything else (`1e3`, `0x10`,
 * `1.5`, `abc`, a repeated parameter) stays as given and fails the integer rule, naming the parameter.
 */
export const toQueryInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[+-]?\d{1,30}$/.test(value) ? Number(value) : value;

/** `page` (1-2147483647, default 1) and `pageSize` (1-100, default 20) of every paginated list. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'page must be an integer' })
  @Min(1)
  @Max(MAX_PAGE)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'pageSize must be an integer' })
  @Min(1)
  @Max(100)
  pageSize: number = 20;
}

export function offsetOf(q: PageQueryDto): number {
  return (q.page - 1) * q.pageSize;
}
