import {
  lookupPath,
  MAX_RENDERED_CHARS,
  renderDeep,
  renderString,
  TemplateError,
} from './templates';

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

/** An object of about `chars` characters as JSON. */
function bigObject(chars: number): Record<string, string> {
  return { text: 'x'.repeat(chars) };
}

describe('the rendering budget', () => {
  const tooLong = `template renders to more than ${MAX_RENDERED_CHARS} characters`;

  it('stringifies each placeholder once per render, however often it appears', () => {
    let stringified = 0;
    const o = {
      toJSON: () => {
        stringified += 1;
        return { a: 1 };
      },
    };
    expect(renderString('{{o}} {{ o }}{{o}}', { o })).toBe('{"a":1} {"a":1}{"a":1}');
    expect(renderDeep(['{{o}}', 'x{{o}}', { y: '{{o}}' }], { o })).toEqual([
      o,
      'x{"a":1}',
      { y: o },
    ]);
    expect(stringified).toBe(2);
  });

  it(`writes exactly ${MAX_RENDERED_CHARS} characters and fails past them, naming the cap`, () => {
    const s = 'x'.repeat(MAX_RENDERED_CHARS - 2);
    expect(renderString('{{s}}ab', { s })).toHaveLength(MAX_RENDERED_CHARS);
    expect(() => renderString('{{s}}abc', { s })).toThrow(TemplateError);
    expect(() => renderString('{{s}}abc', { s })).toThrow(`${tooLong}, the most one template may`);
  });

  it('fails a placeholder repeated over a big value instead of building it again and again', () => {
    // A thousand copies of a megabyte: a gigabyte string without the budget.
    const o = bigObject(1_000_000);
    expect(() => renderString('{{o}}'.repeat(1000), { o })).toThrow(`${tooLong}`);
    expect(() => renderString('{{o}}'.repeat(1000), { o })).toThrow('(filling {{o}})');
  });

  it('counts whole-placeholder values at their JSON length, over the whole config', () => {
    const o = bigObject(1_000_000);
    expect(renderDeep({ body: '{{o}}' }, { o })).toEqual({ body: o });
    // Shared references, but a config that serialises to a gigabyte when sent or recorded.
    expect(() => renderDeep({ refs: Array(1000).fill('{{o}}') }, { o })).toThrow(TemplateError);
    const half = 'y'.repeat(MAX_RENDERED_CHARS / 2);
    expect(() => renderDeep({ a: '{{half}}', b: ['{{half}}!'] }, { half })).toThrow(tooLong);
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
