import { contentAt, statePatchAt } from './content';

describe('contentAt', () => {
  it('returns an object value as it is', () => {
    expect(contentAt({ post: { title: 'T' } }, 'post')).toEqual({
      found: true,
      content: { title: 'T' },
      wrapped: false,
    });
  });

  it('wraps strings, numbers, arrays and null as {value}', () => {
    expect(contentAt({ d: { text: 'hi' } }, 'd.text')).toEqual({
      found: true,
      content: { value: 'hi' },
      wrapped: true,
    });
    expect(contentAt({ n: 0 }, 'n')).toMatchObject({ content: { value: 0 } });
    expect(contentAt({ a: [1] }, 'a')).toMatchObject({ content: { value: [1] } });
    expect(contentAt({ z: null }, 'z')).toMatchObject({ content: { value: null } });
  });

  it('reports a path that names nothing', () => {
    expect(contentAt({ d: {} }, 'd.text')).toEqual({ found: false });
  });
});

/** An Object.prototype (of any realm: structuredClone builds in Node's, Jest runs in its own). */
function hasPlainPrototype(o: object): boolean {
  const proto = Object.getPrototypeOf(o) as object | null;
  return (
    proto !== null && Object.getPrototypeOf(proto) === null && Object.hasOwn(proto, 'toString')
  );
}

describe('statePatchAt', () => {
  it('replaces a top-level key', () => {
    expect(statePatchAt({ draft: 'old', other: 1 }, 'draft', { text: 'new' })).toEqual({
      draft: { text: 'new' },
    });
  });

  it('rewrites a copy of the top-level object for a nested path, keeping its siblings', () => {
    const state = { post: { meta: { title: 'Old', tags: ['x'] }, author: 'ann' } };
    const patch = statePatchAt(state, 'post.meta.title', 'New');
    expect(patch).toEqual({ post: { meta: { title: 'New', tags: ['x'] }, author: 'ann' } });
    expect(state.post.meta.title).toBe('Old');
  });

  it('creates missing intermediate objects', () => {
    expect(statePatchAt({ post: { x: 1 } }, 'post.a.b', 2)).toEqual({
      post: { x: 1, a: { b: 2 } },
    });
    expect(statePatchAt({}, 'a.b', 2)).toEqual({ a: { b: 2 } });
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'writes a path segment named %s as an own key, never a prototype',
    (key) => {
      const state = JSON.parse(`{"doc": {"${key}": {"kept": true}}}`) as Record<string, unknown>;
      const nested = statePatchAt(state, `doc.${key}.text`, 'edited');
      const doc = nested.doc as Record<string, unknown>;
      expect(hasPlainPrototype(doc)).toBe(true);
      expect(Object.getOwnPropertyDescriptor(doc, key)?.value).toEqual({
        kept: true,
        text: 'edited',
      });
      const leaf = statePatchAt({}, `a.${key}`, { v: 1 }).a as Record<string, unknown>;
      expect(hasPlainPrototype(leaf)).toBe(true);
      expect(Object.keys(leaf)).toEqual([key]);
      expect(({} as Record<string, unknown>).v).toBeUndefined();
    },
  );
});
