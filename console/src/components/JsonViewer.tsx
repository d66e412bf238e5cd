import { prettyJson } from '../format';

/**
 * A collapsible JSON tree built from <details>, so it is keyboard operable without script. Every value
 * is rendered as text (never as markup): hostile strings from run input or model output stay inert.
 */
export function JsonViewer({
  value,
  label,
  openDepth = 1,
}: {
  value: unknown;
  label?: string;
  openDepth?: number;
}) {
  return (
    <div class="json-viewer" role="group" aria-label={label}>
      <Node value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function Node({
  name,
  value,
  depth,
  openDepth,
}: {
  name?: string;
  value: unknown;
  depth: number;
  openDepth: number;
}) {
  const key = name === undefined ? null : <span class="json-key">{name}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [String(i), item])
      : Object.entries(value as Record<string, unknown>);
    const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      return (
        <div class="json-line">
          {key}
          <span class="json-punct">{brackets.join('')}</span>
        </div>
      );
    }
    return (
      <details class="json-node" open={depth < openDepth}>
        <summary>
          {key}
          <span class="json-punct">{brackets[0]}</span>
          <span class="json-count">
            {' '}
            {entries.length} {Array.isArray(value) ? 'items' : 'keys'}{' '}
          </span>
          <span class="json-punct">{brackets[1]}</span>
        </summary>
        <div class="json-children">
          {entries.map(([childName, child]) => (
            <Node
              key={childName}
              name={childName}
              value={child}
              depth={depth + 1}
              openDepth={openDepth}
            />
          ))}
        </div>
      </details>
    );
  }
  return (
    <div class="json-line">
      {key}
      <span class={`json-${value === null ? 'null' : typeof value}`}>{prettyJson(value)}</span>
    </div>
  );
}
