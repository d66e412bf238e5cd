/**
 * The inbox's keyboard shortcuts: which key does what, and when a key press is left alone (while the
 * reviewer types, while a dialog is open, with a modifier held, or with shortcuts switched off).
 * Kept free of DOM types so that the rules are unit-tested as they are.
 */

export type ShortcutAction = 'next' | 'previous' | 'approve' | 'reject' | 'edit';

/** The visible list of shortcuts, in the order the page shows it. */
export const SHORTCUTS: readonly {
  keys: readonly string[];
  action: ShortcutAction;
  label: string;
}[] = [
  { keys: ['j', '↓'], action: 'next', label: 'Next request' },
  { keys: ['k', '↑'], action: 'previous', label: 'Previous request' },
  { keys: ['a'], action: 'approve', label: 'Approve' },
  { keys: ['r'], action: 'reject', label: 'Reject with a comment' },
  { keys: ['e'], action: 'edit', label: 'Edit, then approve' },
];

const KEYS: Record<string, ShortcutAction> = {
  j: 'next',
  ArrowDown: 'next',
  k: 'previous',
  ArrowUp: 'previous',
  a: 'approve',
  r: 'reject',
  e: 'edit',
};

/** What the page needs to know of a key press (a KeyboardEvent has all of it). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  /** Repeats of a held key (approve, reject and edit act once per press). */
  repeat?: boolean;
  /** Already handled by something else (a focused control that uses the key itself). */
  defaultPrevented?: boolean;
}

/** What the key press happened on. */
export interface KeyTarget {
  tagName?: string;
  /** `type` of an <input>. */
  type?: string;
  isContentEditable?: boolean;
}

/** Inputs whose keys are not text: a shortcut pressed on them still means the shortcut. */
const NON_TEXT_INPUTS = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'range',
  'color',
]);

/** True when key presses on `target` are typing (text fields, selects, editable content). */
export function isTypingTarget(target: KeyTarget | null | undefined): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = (target.tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !NON_TEXT_INPUTS.has((target.type ?? 'text').toLowerCase());
  return false;
}

/** The action a key press asks for, or undefined when the page must leave the key alone. */
export function shortcutFor(
  press: KeyPress,
  target: KeyTarget | null | undefined,
  context: { enabled: boolean; dialogOpen: boolean },
): ShortcutAction | undefined {
  if (!context.enabled || context.dialogOpen) return undefined;
  if (press.defaultPrevented) return undefined;
  if (press.ctrlKey || press.metaKey || press.altKey || press.shiftKey) return undefined;
  if (isTypingTarget(target)) return undefined;
  const action = KEYS[press.key];
  if (action === undefined) return undefined;
  if (press.repeat && action !== 'next' && action !== 'previous') return undefined;
  return action;
}

/** Where the on/off preference is kept (a preference only: nothing secret is stored). */
export const SHORTCUTS_STORAGE_KEY = 'console.approvals.shortcuts';

/** Shortcuts are on unless the reviewer switched them off. */
export function shortcutsEnabled(stored: string | null): boolean {
  return stored !== 'off';
}

export function storedShortcutsValue(enabled: boolean): string {
  return enabled ? 'on' : 'off';
}
