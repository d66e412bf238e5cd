import { colourFor, MODEL_COLOURS, share, stackByModel, type CostPoint } from './cost-series';

const point = (start: string, model: string, costUsd: number): CostPoint => ({
  start,
  model,
  costUsd,
  inputTokens: 1,
  outputTokens: 1,
  calls: 1,
});

describe('stackByModel', () => {
  it('gives every model a value in every bucket, most expensive model first', () => {
    const starts = [
      '2026-11-01T00:00:00.000Z',
      '2026-11-02T00:00:00.000Z',
      '2026-11-03T00:00:00.000Z',
    ];
    const stacked = stackByModel(
      [
        point('2026-11-01T00:00:00.000Z', 'cheap', 0.001),
        point('2026-11-03T00:00:00.000Z', 'cheap', 0.002),
        point('2026-11-03T00:00:00.000Z', 'premium', 0.5),
      ],
      starts,
    );
    expect(stacked).toEqual({
      starts,
      series: [
        { model: 'premium', values: [0, 0, 0.5] },
        { model: 'cheap', values: [0.001, 0, 0.002] },
      ],
    });
  });

  it('keeps a point whose bucket is not among the expected ones (nothing hidden)', () => {
    const stacked = stackByModel(
      [point('2026-10-31T00:00:00.000Z', 'm', 1)],
      ['2026-11-01T00:00:00.000Z'],
    );
    expect(stacked.starts).toEqual(['2026-10-31T00:00:00.000Z', '2026-11-01T00:00:00.000Z']);
    expect(stacked.series).toEqual([{ model: 'm', values: [1, 0] }]);
  });

  it('matches the API start with or without milliseconds', () => {
    const stacked = stackByModel(
      [point('2026-11-01T00:00:00Z', 'm', 1)],
      ['2026-11-01T00:00:00.000Z'],
    );
    expect(stacked.starts).toEqual(['2026-11-01T00:00:00.000Z']);
  });
});

describe('colourFor and share', () => {
  it('colours by ranking and cycles', () => {
    expect(colourFor('b', ['a', 'b'])).toBe(MODEL_COLOURS[1]);
    expect(colourFor('z', ['a'])).toBe(MODEL_COLOURS[1]);
  });

  it('gives a share with one decimal and 0% of nothing', () => {
    expect(share(1, 8)).toBe('12.5%');
    expect(share(0, 0)).toBe('0%');
  });
});
