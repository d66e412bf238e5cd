import { denialMessage } from './budget-gate';

describe('denialMessage', () => {
  const figures = {
    limitUsd: '10.000000',
    spentUsd: '10.000120000000000000',
    reservedUsd: '0',
    requestUsd: '0.0003',
  };

  it('names the workspace budget, what was spent and what the call may cost', () => {
    expect(denialMessage({ ...figures, budget: 'workspace' }, 'draft')).toBe(
      'Workspace monthly LLM budget of 10 USD is used up (spent 10.000120 USD; this call may cost ' +
        'up to 0.000300 USD)',
    );
  });

  it("names the run's and the step's maxCostUsd, and the calls in flight when there are some", () => {
    const inFlight = { ...figures, limitUsd: '0.050000', spentUsd: '0.04', reservedUsd: '0.0049' };
    expect(denialMessage({ ...inFlight, budget: 'run' }, 'draft')).toBe(
      'Run budget maxCostUsd 0.05 USD is used up (spent 0.040000 USD, 0.004900 USD reserved by ' +
        'calls in flight; this call may cost up to 0.000300 USD)',
    );
    expect(denialMessage({ ...inFlight, budget: 'step' }, 'draft')).toMatch(
      /^Step budget maxCostUsd 0\.05 USD of step "draft" is used up \(spent 0\.040000 USD, /,
    );
  });

  it('rounds half up to micro-dollars', () => {
    expect(
      denialMessage(
        { ...figures, spentUsd: '0.0000005', requestUsd: '0', budget: 'workspace' },
        's',
      ),
    ).toContain('spent 0.000001 USD');
  });
});
