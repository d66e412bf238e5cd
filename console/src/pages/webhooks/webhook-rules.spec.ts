import {
  canRedeliver,
  deliveryStatusFilter,
  pageFromQuery,
  webhookFormProblems,
} from './webhook-rules';

describe('webhookFormProblems', () => {
  it('accepts an https URL with at least one event', () => {
    expect(webhookFormProblems(' https://example.com/hooks ', ['workflow.completed'])).toEqual({});
  });

  it('names what is wrong with the URL and the events', () => {
    expect(webhookFormProblems('', [])).toEqual({
      url: 'Enter the URL that receives the deliveries.',
      events: 'Choose at least one event.',
    });
    expect(webhookFormProblems('example.com', ['a']).url).toBe(
      'Enter an absolute URL, e.g. https://example.com/hooks.',
    );
    expect(webhookFormProblems('http://example.com', ['a']).url).toBe(
      'The URL must start with https://.',
    );
    expect(webhookFormProblems('https://u:p@example.com', ['a']).url).toBe(
      'The URL must not contain credentials.',
    );
    expect(webhookFormProblems(`https://example.com/${'x'.repeat(2048)}`, ['a']).url).toBe(
      'The URL can have at most 2048 characters.',
    );
  });
});

describe('delivery log query', () => {
  it('keeps only known statuses and sane pages', () => {
    expect(deliveryStatusFilter('failed')).toBe('failed');
    expect(deliveryStatusFilter('<b>')).toBeUndefined();
    expect(pageFromQuery('3')).toBe(3);
    expect(pageFromQuery('0')).toBe(1);
    expect(pageFromQuery('1.5')).toBe(1);
    expect(pageFromQuery('99999999999')).toBe(1);
    expect(pageFromQuery(undefined)).toBe(1);
  });

  it('offers redelivery of failed deliveries only', () => {
    expect(canRedeliver({ status: 'failed' })).toBe(true);
    expect(canRedeliver({ status: 'delivered' })).toBe(false);
    expect(canRedeliver({ status: 'pending' })).toBe(false);
  });
});
