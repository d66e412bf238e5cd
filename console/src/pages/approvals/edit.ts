/**
 * The edit-then-approve form's rules, apart from the page so that they are unit-tested: what the JSON
 * editor accepts (an object, as `editedContent` must be) and the line diff of original and edited
 * content that the reviewer checks before approving.
 */
import { diffLines } from 'diff';
import { prettyJson } from '../../format';

export type ParsedEdit =
  { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** The editor's text as the `editedContent` of an `edited` decision, or why it cannot be one. */
export function parseEditedContent(text: string): ParsedEdit {
  if (text.trim() === '') return { ok: false, error: 'Enter the content as a JSON object.' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `This is not valid JSON: ${reason}` };
  }
  if (Array.isArray(value)) {
    return { ok: false, error: 'The content must be a JSON object ({ … }), not an array.' };
  }
  if (value === null || typeof value !== 'object') {
    return {
      ok: false,
      error: `The content must be a JSON object ({ … }), not ${value === null ? 'null' : `a ${typeof value}`}.`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The editor's starting text: the content under review, pretty-printed. */
export function editorText(content: unknown): string {
  return prettyJson(content);
}

export interface DiffLine {
  kind: 'added' | 'removed' | 'same';
  /** Shown before the line, so that a change is told by text and not only by colour. */
  marker: '+' | '-' | ' ';
  text: string;
}

export interface ContentDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
  /** False when the two were too far apart to compare line by line within the edit budget. */
  complete: boolean;
}

/** Beyond this many changed lines the diff gives up rather than stall typing in a large document. */
export const MAX_DIFF_EDIT_LENGTH = 4000;

/** The line diff of the pretty-printed original and edited content (the edit as it would be sent). */
export function contentDiff(original: unknown, edited: unknown): ContentDiff {
  const changes = diffLines(prettyJson(original), prettyJson(edited), {
    maxEditLength: MAX_DIFF_EDIT_LENGTH,
  });
  if (!changes) return { lines: [], added: 0, removed: 0, complete: false };
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    const texts = change.value.replace(/\n$/, '').split('\n');
    for (const text of texts) {
      lines.push({ kind, marker: kind === 'added' ? '+' : kind === 'removed' ? '-' : ' ', text });
    }
    if (kind === 'added') added += texts.length;
    if (kind === 'removed') removed += texts.length;
  }
  return { lines, added, removed, complete: true };
}

/** True when the edit changes nothing (the same JSON, key order included). */
export function sameContent(original: unknown, edited: unknown): boolean {
  return prettyJson(original) === prettyJson(edited);
}
