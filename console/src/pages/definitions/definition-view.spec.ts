import { describeSteps, groupByName, stepAnchor, type DefinitionLike } from './definition-view';

const def = (id: string, name: string, version: string, createdAt: string): DefinitionLike => ({
  id,
  name,
  version,
  createdAt,
  description: null,
  steps: [],
});

describe('groupByName', () => {
  const all = [
    def('1', 'billing', '1', '2026-01-01T00:00:00Z'),
    def('2', 'onboarding', '1', '2026-02-01T00:00:00Z'),
    def('3', 'billing', '2', '2026-03-01T00:00:00Z'),
  ];

  it('groups versions newest first, the group with the newest version first', () => {
    expect(groupByName(all).map((g) => [g.name, g.versions.map((v) => v.id)])).toEqual([
      ['billing', ['3', '1']],
      ['onboarding', ['2']],
    ]);
  });

  it('filters by name, ignoring case', () => {
    expect(groupByName(all, ' BILL ').map((g) => g.name)).toEqual(['billing']);
  });
});

describe('describeSteps', () => {
  const steps = [
    { type: 'task', name: 'fetch', handler: 'http', outputKey: 'page', retry: { maxAttempts: 4 } },
    { type: 'llm', name: 'draft', model: 'openai:gpt-4o-mini', fallbackModels: ['a', 'b'] },
    { type: 'condition', name: 'good?', expression: '$.ok', then: 'publish' },
    { type: 'approval', name: 'review', contentKey: 'draft.text', regenerateFrom: 'draft' },
    { type: 'external_event', name: 'wait-signal', signalType: 'payment.received' },
    { type: 'approval', name: 'final', contentKey: 'x' },
    { type: 'wait', name: 'pause' },
    { type: 'task', name: 'publish', handler: 'noop' },
  ];
  const views = describeSteps(steps);

  it('shows the main fields of each type', () => {
    expect(views[0].fields).toEqual([
      { label: 'handler', value: 'http' },
      { label: 'outputKey', value: 'page' },
      { label: 'retry.maxAttempts', value: '4' },
    ]);
    expect(views[1].fields).toEqual([
      { label: 'model', value: 'openai:gpt-4o-mini' },
      { label: 'fallbackModels', value: 'a, b' },
    ]);
    expect(views[4].fields).toEqual([{ label: 'signalType', value: 'payment.received' }]);
    expect(views[6].fields).toEqual([{ label: 'waits', value: 'until resumed' }]);
  });

  it('resolves condition jumps, the missing branch going to the next step', () => {
    expect(views[2].jumps).toEqual([
      { label: 'then', targetIndex: 7, targetName: 'publish', isDefault: false },
      { label: 'else', targetIndex: 3, targetName: 'review', isDefault: true },
    ]);
  });

  it('resolves an approval rejection to regenerateFrom, by default the step before', () => {
    expect(views[3].jumps).toEqual([
      {
        label: 'on rejection (attempts left)',
        targetIndex: 1,
        targetName: 'draft',
        isDefault: false,
      },
    ]);
    expect(views[5].jumps).toEqual([
      {
        label: 'on rejection (attempts left)',
        targetIndex: 4,
        targetName: 'wait-signal',
        isDefault: true,
      },
    ]);
  });

  it('sends a last condition without else to the end of the run, a first approval to itself', () => {
    const [first, last] = describeSteps([
      { type: 'approval', name: 'a', contentKey: 'x' },
      { type: 'condition', name: 'c', expression: 'true', then: 'a' },
    ]);
    expect(first.jumps[0]).toEqual(expect.objectContaining({ targetIndex: 0, targetName: 'a' }));
    expect(last.jumps[1]).toEqual({ label: 'else', targetName: 'end of the run', isDefault: true });
  });

  it('anchors steps by position, never by their free-text name', () => {
    expect(stepAnchor(0)).toBe('step-1');
  });
});
