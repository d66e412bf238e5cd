import { ApiProperty } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsUsdAmount, MAX_USD_AMOUNT } from '../../common/usd';

const LIMIT_RULE = `A positive number of USD with at most 6 decimal places, at most ${MAX_USD_AMOUNT}`;

export class PutBudgetDto {
  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0.000001,
    maximum: MAX_USD_AMOUNT,
    example: 25,
    description: `${LIMIT_RULE}; null removes the budget. Required.`,
  })
  @ValidateIf((dto: PutBudgetDto) => dto.monthlyLimitUsd !== null)
  @IsUsdAmount()
  monthlyLimitUsd: number | null;
}

export class BudgetDto {
  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0.000001,
    maximum: MAX_USD_AMOUNT,
    example: 25,
    description: "The workspace's LLM budget per calendar month (UTC); null when it has none",
  })
  monthlyLimitUsd: number | null;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    example: 3.141592,
    description:
      'Recorded LLM cost of the month so far (calls in flight not included): the totalCostUsd of ' +
      'GET /v1/cost/summary?from=<periodStart>&to=<periodEnd>',
  })
  spentUsd: number;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-01T00:00:00.000Z',
    description: 'First millisecond of the current calendar month, UTC',
  })
  periodStart: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-30T23:59:59.999Z',
    description: 'Last millisecond of the current calendar month, UTC (inclusive)',
  })
  periodEnd: string;
}
