import type { ContentDiff } from './edit';

/**
 * The line diff of original and edited content. Every line carries its marker as text (`-` removed,
 * `+` added), so that the change is readable without colour and by a screen reader.
 */
export function DiffView({ diff }: { diff: ContentDiff }) {
  if (!diff.complete) {
    return (
      <p class="hint">
        The edit changes too much to show line by line; check the content in the editor.
      </p>
    );
  }
  return (
    <>
      <p class="hint">
        {diff.added + diff.removed === 0
          ? 'No changes yet.'
          : `${plural(diff.removed, 'line')} removed (-), ${plural(diff.added, 'line')} added (+).`}
      </p>
      <pre
        class="approval-diff"
        tabIndex={0}
        role="region"
        aria-label="Changes: original (-) and edited (+) content"
      >
        {diff.lines.map((line, i) => (
          <span key={i} class={`diff-line diff-${line.kind}`}>
            <span class="diff-marker">{line.marker}</span>
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </>
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
