import { payloadPreview } from './signal-preview';

describe('payloadPreview', () => {
  it('keeps a short payload whole', () => {
    expect(payloadPreview('{"amount":12}')).toBe('{"amount":12}');
    expect(payloadPreview('x'.repeat(200))).toBe('x'.repeat(200));
  });

  it('cuts a long payload after the limit and marks the cut', () => {
    expect(payloadPreview('x'.repeat(201))).toBe(`${'x'.repeat(200)}…`);
    expect(payloadPreview('"abcdef"', 4)).toBe('"abc…');
  });

  it('counts characters, never splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(150); // 300 UTF-16 units, 150 characters
    expect(payloadPreview(emoji)).toBe(emoji);
    const cut = payloadPreview('😀'.repeat(250));
    expect(Array.from(cut)).toHaveLength(201);
    expect(cut.endsWith('😀…')).toBe(true);
  });
});
