import { lookupPath, renderDeep, renderString, TemplateError } from './templates';

const state = {
  customer: { name: 'Ada', tags: ['vip', 'beta'], address: { city: 'London' } },
  order: { total: 42.5, paid: false, note: null },
  items: [{ sku: 'a-1' }],
};

describe('lookupPath', () => {
  it('follows a dot path through objects and arrays', () => {
    expect(lookupPath(state, 'customer.address.city')).toBe('London');
    expect(lookupPath(state, 'items.0.sku')).toBe('a-1');
  });

  it('returns undefined for a missing path, and never walks into inherited properties', () => {
    expect(lookupPath(state, 'customer.phone')).toBeUndefined();
    expect(lookupPath(state, 'order.total.cents')).toBeUndefined();
    expect(lookupPath(state, 'constructor')).toBeUndefined();
    expect(lookupPath(state, 'customer.__proto__')).toBeUndefined();
  });
});

describe('renderString', () => {
  it('fills placeholders, tolerating spaces inside the braces', () => {
    expect(renderString('Hello {{customer.name}}, from {{ customer.address.city }}!', state)).toBe(
      'Hello Ada, from London!',
    );
  });

  it('inserts non-strings as JSON', () => {
    expect(
      renderString('total={{order.total}} paid={{order.paid}} note={{order.note}}', state),
    ).toBe('total=42.5 paid=false note=null');
    expect(renderString('tags={{customer.tags}}', state)).toBe('tags=["vip","beta"]');
  });

  it.each([
    ['{{ followed by spaces', `{{${' '.repeat(20_000)}x`],
    ['{{ followed by a path and spaces', `{{a${' '.repeat(20_000)}`],
    ['many unclosed {{', '{{a '.repeat(10_000)],
    ['spaces and newlines then one brace', `{{${' \n'.repeat(10_000)}}`],
  ])('scans %s in linear time, leaving it unchanged', (_what, template) => {
    // The former pattern, \{\{\s*([^{}]+?)\s*\}\}, backtracked for minutes on each of these.
    expect(renderString(template, state)).toBe(template);
    expect(renderDeep(template, state)).toBe(template);
  });

  it('keeps filling placeholders found after long unclosed ones', () => {
    const template = `{{${' '.repeat(20_000)} and {{ customer.name }}`;
    expect(renderString(template, state)).toBe(`{{${' '.repeat(20_000)} and Ada`);
    expect(renderDeep('{{\tcustomer.address.city\n}}', state)).toBe('London');
    expect(() => renderString('{{   }}', state)).toThrow('missing value for placeholder {{ }}');
  });

  it('leaves text without placeholders unchanged', () => {
    expect(renderString('no {placeholders} here', state)).toBe('no {placeholders} here');
  });

  it('fails with a TemplateError naming the missing placeholder', () => {
    expect(() => renderString('Hi {{customer.nickname}}', state)).toThrow(TemplateError);
    expect(() => renderString('Hi {{customer.nickname}}', state)).toThrow(
      'missing value for placeholder {{customer.nickname}}',
    );
  });
});

describe('renderDeep', () => {
  it('renders every string of nested objects and arrays, leaving other values alone', () => {
    expect(
      renderDeep(
        {
          url: 'https://example.test/customers/{{customer.name}}',
          headers: { 'x-city': '{{customer.address.city}}' },
          list: ['{{items.0.sku}}', 7, true, null],
        },
        state,
      ),
    ).toEqual({
      url: 'https://example.test/customers/Ada',
      headers: { 'x-city': 'London' },
      list: ['a-1', 7, true, null],
    });
  });

  it('keeps the type of a value when the string is exactly one placeholder', () => {
    expect(
      renderDeep(
        { total: '{{order.total}}', paid: '{{ order.paid }}', customer: '{{customer}}' },
        state,
      ),
    ).toEqual({ total: 42.5, paid: false, customer: state.customer });
  });

  it('fails naming the placeholder when a nested value is missing', () => {
    expect(() => renderDeep({ body: { ref: ['{{order.reference}}'] } }, state)).toThrow(
      'missing value for placeholder {{order.reference}}',
    );
  });
});
