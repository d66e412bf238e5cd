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
});
