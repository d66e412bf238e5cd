import { useState } from 'preact/hooks';
import { api, errorMessage, unwrap } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorState, Loading } from '../../components/states';
import { formatUsd } from '../../format';
import { useAsync } from '../../hooks';
import { useCan } from '../../session';
import { budgetUse, monthLabel, parseLimit } from './budget';

type Budget = { monthlyLimitUsd: number | null; spentUsd: number; periodStart: string };

/**
 * The workspace's monthly LLM budget: the month's limit, what it has spent and how much is left, and
 * (for a key that may change it) a form to set, change or remove it.
 */
export function BudgetPanel() {
  const budget = useAsync(() => unwrap(api.GET('/v1/workspaces/current/budget')), []);
  // The service checks it too (403); a key that may not change the budget is offered no form.
  const editable = useCan('keys:write');

  return (
    <section class="panel budget-panel" aria-labelledby="budget-title">
      <h2 id="budget-title">Monthly LLM budget</h2>
      {budget.error !== undefined && !budget.loading ? (
        <ErrorState error={budget.error} onRetry={budget.reload} />
      ) : !budget.data ? (
        <Loading label="Loading the budget…" />
      ) : (
        <>
          <BudgetFigures budget={budget.data} />
          {editable ? (
            <BudgetForm budget={budget.data} onSaved={budget.reload} />
          ) : (
            <p class="muted">
              This key may read the budget but not change it (that needs the keys:write scope).
            </p>
          )}
        </>
      )}
    </section>
  );
}

function BudgetFigures({ budget }: { budget: Budget }) {
  const month = monthLabel(budget.periodStart);
  if (budget.monthlyLimitUsd === null) {
    return (
      <p data-budget="none">
        No monthly budget: LLM calls are not limited. {month} (UTC) has spent{' '}
        <strong data-budget="spent">{formatUsd(budget.spentUsd)}</strong> so far.
      </p>
    );
  }
  const use = budgetUse(budget.monthlyLimitUsd, budget.spentUsd);
  return (
    <>
      <dl class="cost-totals budget-figures">
        <div>
          <dt>Limit for {month} (UTC)</dt>
          <dd data-budget="limit">{formatUsd(budget.monthlyLimitUsd)}</dd>
        </div>
        <div>
          <dt>Spent</dt>
          <dd data-budget="spent">{formatUsd(budget.spentUsd)}</dd>
        </div>
        <div>
          <dt>{use.overUsd > 0 ? 'Over the limit by' : 'Left'}</dt>
          <dd data-budget="left">{formatUsd(use.overUsd > 0 ? use.overUsd : use.leftUsd)}</dd>
        </div>
      </dl>
      <div class="budget-progress">
        <progress
          id="budget-used"
          max={100}
          value={Math.min(100, use.percent)}
          aria-label={`${use.percent}% of the monthly budget used`}
        />
        <span data-budget="percent">{use.percent}% used</span>
      </div>
      {use.percent >= 100 && (
        <p class="field-error" data-budget="used-up">
          The budget is used up: LLM calls that would go past it do not start until the next month
          or a higher limit (or a human approves them, for steps that ask).
        </p>
      )}
    </>
  );
}

function BudgetForm({ budget, onSaved }: { budget: Budget; onSaved: () => void }) {
  const [text, setText] = useState(
    budget.monthlyLimitUsd === null ? '' : String(budget.monthlyLimitUsd),
  );
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [removing, setRemoving] = useState(false);
  const parsed = parseLimit(text);
  const problem = submitted && !parsed.ok ? parsed.problem : undefined;

  const save = (monthlyLimitUsd: number | null) => {
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    return unwrap(api.PUT('/v1/workspaces/current/budget', { body: { monthlyLimitUsd } }))
      .then(
        (answer) => {
          setSaved(
            answer.monthlyLimitUsd === null
              ? 'Budget removed.'
              : `Budget set to ${formatUsd(answer.monthlyLimitUsd)} a month.`,
          );
          setSubmitted(false);
          if (answer.monthlyLimitUsd === null) setText('');
          onSaved();
        },
        (err: unknown) => setError(errorMessage(err)),
      )
      .finally(() => setBusy(false));
  };

  return (
    <>
      <form
        class="budget-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setSubmitted(true);
          if (parsed.ok) void save(parsed.value);
        }}
      >
        <div class="field">
          <label for="budget-limit">Monthly limit (USD)</label>
          <input
            id="budget-limit"
            type="text"
            inputMode="decimal"
            placeholder="25"
            value={text}
            aria-invalid={problem !== undefined}
            aria-describedby="budget-limit-hint"
            onInput={(event) => setText(event.currentTarget.value)}
          />
          <p id="budget-limit-hint" class={problem ? 'field-error' : 'hint'}>
            {problem ?? 'At most 6 decimals. Calls are checked against it before they start.'}
          </p>
        </div>
        <div class="budget-actions">
          <button type="submit" class="button primary" disabled={busy}>
            {budget.monthlyLimitUsd === null ? 'Set budget' : 'Change budget'}
          </button>
          {budget.monthlyLimitUsd !== null && (
            <button
              type="button"
              class="button danger"
              disabled={busy}
              onClick={() => setRemoving(true)}
            >
              Remove budget
            </button>
          )}
        </div>
        <p role="status" class="muted">
          {saved ?? ''}
        </p>
        {error && (
          <p class="error-state" role="alert">
            The budget was not changed: {error}
          </p>
        )}
      </form>
      <ConfirmDialog
        open={removing}
        title="Remove the monthly budget?"
        confirmLabel="Remove budget"
        danger
        busy={busy}
        onCancel={() => setRemoving(false)}
        onConfirm={() => {
          void save(null).finally(() => setRemoving(false));
        }}
      >
        <p>LLM calls of this workspace will no longer be limited by a monthly budget.</p>
      </ConfirmDialog>
    </>
  );
}
