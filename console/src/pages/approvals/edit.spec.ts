import { contentDiff, editorText, parseEditedContent, sameContent } from './edit';

describe('parseEditedContent', () => {
  it('accepts a JSON object, nested values included', () => {
    expect(parseEditedContent('{"title": "T", "tags": ["a"], "n": {"x": null}}')).toEqual({
      ok: true,
      value: { title: 'T', tags: ['a'], n: { x: null } },
    });
  });

  it('refuses empty text, broken JSON, arrays, null and scalars with a message saying why', () => {
    expect(parseEditedContent('  ')).toEqual({
      ok: false,
      error: 'Enter the content as a JSON object.',
    });
    const broken = parseEditedContent('{"title": ');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.error).toMatch(/^This is not valid JSON: /);
    expect(parseEditedContent('[1, 2]')).toEqual({
      ok: false,
      error: 'The content must be a JSON object ({ … }), not an array.',
    });
    expect(parseEditedContent('null')).toEqual({
      ok: false,
      error: 'The content must be a JSON object ({ … }), not null.',
    });
    expect(parseEditedContent('"text"')).toEqual({
      ok: false,
      error: 'The content must be a JSON object ({ … }), not a string.',
    });
    expect(parseEditedContent('42')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a number/),
    });
  });

  it('keeps hostile strings as data', () => {
    const text = '{"html": "<img src=x onerror=\\"window.__xss=1\\">"}';
    expect(parseEditedContent(text)).toEqual({
      ok: true,
      value: { html: '<img src=x onerror="window.__xss=1">' },
    });
  });
});

describe('editorText', () => {
  it('pretty-prints the content with two spaces, which parses back to the same content', () => {
    const content = { a: 1, b: { c: 'x' } };
    const text = editorText(content);
    expect(text).toBe('{\n  "a": 1,\n  "b": {\n    "c": "x"\n  }\n}');
    expect(parseEditedContent(text)).toEqual({ ok: true, value: content });
  });
});

describe('contentDiff', () => {
  it('marks removed and added lines with - and +, unchanged lines with a blank', () => {
    const diff = contentDiff({ title: 'Old', body: 'B' }, { title: 'New', body: 'B' });
    expect(diff.complete).toBe(true);
    expect(diff.added).toBe(1);
    expect(diff.removed).toBe(1);
    expect(diff.lines).toEqual([
      { kind: 'same', marker: ' ', text: '{' },
      { kind: 'removed', marker: '-', text: '  "title": "Old",' },
      { kind: 'added', marker: '+', text: '  "title": "New",' },
      { kind: 'same', marker: ' ', text: '  "body": "B"' },
      { kind: 'same', marker: ' ', text: '}' },
    ]);
  });

  it('shows a key added at the end (the comma of the line before changes too)', () => {
    const diff = contentDiff({ a: 1 }, { a: 1, b: 2 });
    expect(diff.lines.filter((l) => l.kind !== 'same').map((l) => `${l.marker}${l.text}`)).toEqual([
      '-  "a": 1',
      '+  "a": 1,',
      '+  "b": 2',
    ]);
  });

  it('has no changed lines for the same content', () => {
    const diff = contentDiff({ a: [1, 2] }, { a: [1, 2] });
    expect(diff.added + diff.removed).toBe(0);
    expect(diff.lines.every((l) => l.kind === 'same' && l.marker === ' ')).toBe(true);
  });

  it('gives up on documents too far apart instead of stalling, and says so', () => {
    const many = (prefix: string) =>
      Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`${prefix}${i}`, i]));
    const diff = contentDiff(many('a'), many('b'));
    expect(diff).toEqual({ lines: [], added: 0, removed: 0, complete: false });
  });
});

describe('sameContent', () => {
  it('compares the JSON, key order included', () => {
    expect(sameContent({ a: 1, b: 2 }, { a: 1, b: 2 })).toBe(true);
    expect(sameContent({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameContent({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
  });
});
