import {
  isTypingTarget,
  shortcutFor,
  shortcutsEnabled,
  storedShortcutsValue,
  type KeyPress,
} from './keyboard';

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...extra,
});
const body = { tagName: 'BODY' };
const on = { enabled: true, dialogOpen: false };

describe('shortcutFor', () => {
  it('maps j/ArrowDown to next, k/ArrowUp to previous, a/r/e to approve/reject/edit', () => {
    expect(shortcutFor(press('j'), body, on)).toBe('next');
    expect(shortcutFor(press('ArrowDown'), body, on)).toBe('next');
    expect(shortcutFor(press('k'), body, on)).toBe('previous');
    expect(shortcutFor(press('ArrowUp'), body, on)).toBe('previous');
    expect(shortcutFor(press('a'), body, on)).toBe('approve');
    expect(shortcutFor(press('r'), body, on)).toBe('reject');
    expect(shortcutFor(press('e'), body, on)).toBe('edit');
  });

  it('acts on buttons, links and checkboxes that have the focus', () => {
    expect(shortcutFor(press('a'), { tagName: 'BUTTON' }, on)).toBe('approve');
    expect(shortcutFor(press('j'), { tagName: 'A' }, on)).toBe('next');
    expect(shortcutFor(press('r'), { tagName: 'INPUT', type: 'checkbox' }, on)).toBe('reject');
  });

  it('ignores other keys', () => {
    for (const key of ['x', 'A', 'Enter', ' ', 'Escape', 'ArrowLeft', '?']) {
      expect(shortcutFor(press(key), body, on)).toBeUndefined();
    }
  });

  it('does nothing while switched off', () => {
    for (const key of ['j', 'k', 'a', 'r', 'e', 'ArrowDown']) {
      expect(shortcutFor(press(key), body, { enabled: false, dialogOpen: false })).toBeUndefined();
    }
  });

  it('does nothing while a dialog is open', () => {
    expect(shortcutFor(press('a'), body, { enabled: true, dialogOpen: true })).toBeUndefined();
    expect(shortcutFor(press('j'), body, { enabled: true, dialogOpen: true })).toBeUndefined();
  });

  it('does nothing while typing in a text field, a textarea, a select or editable content', () => {
    const targets = [
      { tagName: 'INPUT' },
      { tagName: 'INPUT', type: 'text' },
      { tagName: 'INPUT', type: 'search' },
      { tagName: 'TEXTAREA' },
      { tagName: 'SELECT' },
      { tagName: 'DIV', isContentEditable: true },
    ];
    for (const target of targets) {
      expect(isTypingTarget(target)).toBe(true);
      expect(shortcutFor(press('a'), target, on)).toBeUndefined();
      expect(shortcutFor(press('j'), target, on)).toBeUndefined();
    }
  });

  it('leaves key combinations (Ctrl+R, Cmd+A, Shift+ArrowDown, Alt+E) to the browser', () => {
    expect(shortcutFor(press('r', { ctrlKey: true }), body, on)).toBeUndefined();
    expect(shortcutFor(press('a', { metaKey: true }), body, on)).toBeUndefined();
    expect(shortcutFor(press('ArrowDown', { shiftKey: true }), body, on)).toBeUndefined();
    expect(shortcutFor(press('e', { altKey: true }), body, on)).toBeUndefined();
  });

  it('leaves keys another control already handled alone', () => {
    expect(shortcutFor(press('ArrowDown', { defaultPrevented: true }), body, on)).toBeUndefined();
  });

  it('moves on a held j or k, but decides only once per press', () => {
    expect(shortcutFor(press('j', { repeat: true }), body, on)).toBe('next');
    expect(shortcutFor(press('k', { repeat: true }), body, on)).toBe('previous');
    expect(shortcutFor(press('a', { repeat: true }), body, on)).toBeUndefined();
    expect(shortcutFor(press('r', { repeat: true }), body, on)).toBeUndefined();
  });
});

describe('isTypingTarget', () => {
  it('is false for no target and for non-text controls', () => {
    expect(isTypingTarget(null)).toBe(false);
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'radio' })).toBe(false);
  });
});

describe('the shortcuts preference', () => {
  it('is on by default and off only when switched off', () => {
    expect(shortcutsEnabled(null)).toBe(true);
    expect(shortcutsEnabled('on')).toBe(true);
    expect(shortcutsEnabled('off')).toBe(false);
    expect(shortcutsEnabled(storedShortcutsValue(false))).toBe(false);
    expect(shortcutsEnabled(storedShortcutsValue(true))).toBe(true);
  });
});
