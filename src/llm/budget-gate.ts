import { randomUUID } from 'node:crypto';
import { addDecimals, roundDecimal, usdDecimal } from '../common/usd';
import { monthPeriod } from '../budgets/budget-period';
import type { BudgetKind, BudgetsRepository } from '../budgets/budgets.repository';
import type { StepContext } from '../steps/step-executor';

/** A provider request that a budget does not let start. */
export interface BudgetDenial {
  budget: BudgetKind;
  /** Exact decimals. */
  limitUsd: string;
  spentUsd: string;
  reservedUsd: string;
  requestUsd: string;
  /** `Workspace monthly LLM budget of 10 USD is used up (spent 10.000120 USD; ...)`. */
  message: string;
}

/** Thrown from inside a call (before a tool round trip) that its budget stops. */
export class BudgetStop extends Error {
  constructor(readonly denial: BudgetDenial) {
    super(denial.message);
  }
}

/** `10.000000` -> `10`, `0.050000` -> `0.05`: a limit as the client wrote it. */
function limitText(decimal: string): string {
  return usdDecimal(Number(decimal));
}

function isZero(decimal: string): boolean {
  return roundDecimal(decimal) === '0.000000';
}

/** The message of a denial, naming the budget (README "Budgets"). */
export function denialMessage(d: Omit<BudgetDenial, 'message'>, stepName: string): string {
  const limit = limitText(d.limitUsd);
  const budget =
    d.budget === 'workspace'
      ? `Workspace monthly LLM budget of ${limit} USD`
      : d.budget === 'run'
        ? `Run budget maxCostUsd ${limit} USD`
        : `Step budget maxCostUsd ${limit} USD of step "${stepName}"`;
  const reserved = isZero(d.reservedUsd)
    ? ''
    : `, ${roundDecimal(d.reservedUsd)} USD reserved by calls in flight`;
  return (
    `${budget} is used up (spent ${roundDecimal(d.spentUsd)} USD${reserved}; ` +
    `this call may cost up to ${roundDecimal(d.requestUsd)} USD)`
  );
}

/**
 * The budgets of one execution of an llm step: before each provider request (every model tried, every
 * tool round trip) it reserves what the execution may have spent once that request is answered (its
 * calls not yet recorded plus the request's worst case) under the workspace's lock, and is refused when
 * a budget cannot cover it. One reservation row per execution, its amount replaced at each request; it
 * is deleted in the transaction that records the step's outcome, with the cost records
 * (BudgetsRepository). `force`: a human allowed the execution past its budget, so the reservation is
 * written (other steps see it) but never refused.
 */
export class BudgetGate {
  private readonly reservationId = randomUUID();
  /** The execution's calls that were answered, whose cost records wait for the outcome. */
  private unrecordedUsd = '0';
  private registered = false;

  constructor(
    private readonly budgets: BudgetsRepository,
    private readonly ctx: StepContext,
    private readonly limits: { run: string | null; step: string | null },
    readonly force: boolean,
  ) {}

  /**
   * Reserves for a request whose worst case is `requestUsd`, after `inCallUsd` already spent by the
   * current call's earlier round trips. Undefined when it may start.
   */
  async reserve(requestUsd: string, inCallUsd = '0'): Promise<BudgetDenial | undefined> {
    const { ctx } = this;
    if (!this.registered) {
      // Deleted with the outcome whatever it is (also when no row was written: a no-op).
      this.registered = true;
      const id = this.reservationId;
      ctx.onCommit(async (tx) => {
        await this.budgets.release(tx.client, id);
      });
    }
    const result = await this.budgets.reserve({
      workspaceId: ctx.workspaceId,
      runId: ctx.runId,
      stepRunId: ctx.stepRunId,
      stepName: ctx.step.name,
      workerId: ctx.workerId,
      reservationId: this.reservationId,
      amountUsd: addDecimals(this.unrecordedUsd, inCallUsd, requestUsd),
      requestUsd,
      period: monthPeriod(new Date()),
      runLimitUsd: this.limits.run,
      stepLimitUsd: this.limits.step,
      force: this.force,
    });
    if (result.ok) return undefined;
    const denial = {
      budget: result.budget,
      limitUsd: result.figures.limit,
      spentUsd: result.figures.spent,
      reservedUsd: result.figures.reserved,
      requestUsd,
    };
    return { ...denial, message: denialMessage(denial, ctx.step.name) };
  }

  /** A call the provider billed (`costUsd`, exact): counted until its cost record is written. */
  billed(costUsd: string): void {
    this.unrecordedUsd = addDecimals(this.unrecordedUsd, costUsd);
  }
}
