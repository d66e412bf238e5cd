import {
  definitionLabel,
  hasFilters,
  isoToUtcInput,
  listParams,
  runDuration,
  runIdFromSearch,
  sortDefinitions,
  utcInputToIso,
} from './runs-query';

describe('Runs page query', () => {
  it('sends the first page of 20 with no filter for an empty query', () => {
    expect(listParams({})).toEqual({ params: { page: 1, pageSize: 20 }, problems: [] });
  });

  it('passes page, status, definition and the creation range through', () => {
    const { params, problems } = listParams({
      page: '3',
      status: 'FAILED',
      definitionId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      createdFrom: '2026-11-01T00:00:00.000Z',
      createdTo: '2026-11-02T12:30:00.000Z',
    });
    expect(problems).toEqual([]);
    expect(params).toEqual({
      page: 3,
      pageSize: 20,
      status: 'FAILED',
      definitionId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      createdFrom: '2026-11-01T00:00:00.000Z',
      createdTo: '2026-11-02T12:30:00.000Z',
    });
  });

  it('reports an unknown status, a bad page and a time that is not an instant instead of sending them', () => {
    const { params, problems } = listParams({
      page: '0',
      status: 'DONE',
      createdFrom: 'yesterday',
      createdTo: '2026-11-02T12:30', // no offset: would be read in the browser's zone
    });
    expect(params).toEqual({ page: 1, pageSize: 20 });
    expect(problems.map((p) => p.field)).toEqual(['page', 'status', 'createdFrom', 'createdTo']);
  });

  it('refuses a range whose end is not after its start, naming the end', () => {
    const { params, problems } = listParams({
      createdFrom: '2026-11-02T00:00:00.000Z',
      createdTo: '2026-11-02T00:00:00.000Z',
    });
    expect(params.createdFrom).toBe('2026-11-02T00:00:00.000Z');
    expect(params.createdTo).toBeUndefined();
    expect(problems).toEqual([{ field: 'createdTo', message: expect.stringContaining('after') }]);
  });

  it('knows when a filter (not the page) is set', () => {
    expect(hasFilters({ page: '2' })).toBe(false);
    expect(hasFilters({ status: 'RUNNING' })).toBe(true);
    expect(hasFilters({ createdTo: '2026-11-02T00:00:00.000Z' })).toBe(true);
  });

  it('reads date-time inputs as UTC and writes instants back in UTC', () => {
    expect(utcInputToIso('2026-11-24T17:03')).toBe('2026-11-24T17:03:00.000Z');
    expect(utcInputToIso('2026-11-24T17:03:05')).toBe('2026-11-24T17:03:05.000Z');
    expect(utcInputToIso('')).toBe('');
    expect(utcInputToIso('2026-11-24')).toBe('');
    expect(isoToUtcInput('2026-11-24T17:03:00.000Z')).toBe('2026-11-24T17:03');
    expect(isoToUtcInput('2026-11-24T17:03:05.000Z')).toBe('2026-11-24T17:03:05');
    expect(isoToUtcInput('2026-11-24T18:03:00+01:00')).toBe('2026-11-24T17:03');
    expect(isoToUtcInput(undefined)).toBe('');
    expect(isoToUtcInput('soon')).toBe('');
  });

  it('finds the run id in a bare id, a console link, an API URL or a log line', () => {
    const id = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(runIdFromSearch(`  ${id}  `)).toBe(id);
    expect(runIdFromSearch(id.toUpperCase())).toBe(id);
    expect(runIdFromSearch(`https://host/console/runs/${id}?step=x`)).toBe(id);
    expect(runIdFromSearch(`run=${id} failed`)).toBe(id);
    expect(runIdFromSearch('0193a1b2')).toBeUndefined();
    expect(runIdFromSearch('')).toBeUndefined();
  });

  it('measures a finished run until its last change and a live one until now', () => {
    const run = { createdAt: '2026-11-24T10:00:00.000Z', updatedAt: '2026-11-24T10:00:12.500Z' };
    const now = Date.parse('2026-11-24T10:05:00.000Z');
    expect(runDuration({ ...run, status: 'COMPLETED' }, now)).toEqual({
      ms: 12_500,
      ongoing: false,
    });
    expect(runDuration({ ...run, status: 'WAITING' }, now)).toEqual({ ms: 300_000, ongoing: true });
  });

  it('labels definitions name@version and orders them by name, then version numerically', () => {
    const defs = [
      { name: 'b', version: '10' },
      { name: 'a', version: '2' },
      { name: 'b', version: '9' },
    ];
    expect(sortDefinitions(defs).map(definitionLabel)).toEqual(['a@2', 'b@9', 'b@10']);
  });
});
