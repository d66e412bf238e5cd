import { lookupPath } from '../common/templates';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The content under review: the state value at the dot path, a non-object wrapped as `{value}`. */
export function contentAt(
  state: Record<string, unknown>,
  contentKey: string,
): { found: false } | { found: true; content: Record<string, unknown>; wrapped: boolean } {
  const value = lookupPath(state, contentKey);
  if (value === undefined) return { found: false };
  return isPlainObject(value)
    ? { found: true, content: value, wrapped: false }
    : { found: true, content: { value }, wrapped: true };
}

/** `target[key] = value` as an own data property, even for `__proto__` (data, never a prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/**
 * The top-level state changes that put `value` at the dot path `contentKey` (the run engine merges a
 * step's statePatch one level deep, so a nested path rewrites a copy of its top-level object).
 * Missing or non-object intermediate values are replaced by objects.
 */
export function statePatchAt(
  state: Record<string, unknown>,
  contentKey: string,
  value: unknown,
): Record<string, unknown> {
  const [top, ...rest] = contentKey.split('.');
  if (rest.length === 0) return { [top]: value };
  const root: Record<string, unknown> =
    Object.prototype.hasOwnProperty.call(state, top) && isPlainObject(state[top])
      ? structuredClone(state[top])
      : {};
  let node: Record<string, unknown> = root;
  for (const part of rest.slice(0, -1)) {
    const next = Object.prototype.hasOwnProperty.call(node, part) ? node[part] : undefined;
    if (typeof next === 'object' && next !== null) {
      node = next as Record<string, unknown>;
    } else {
      const created: Record<string, unknown> = {};
      setOwn(node, part, created);
      node = created;
    }
  }
  setOwn(node, rest[rest.length - 1], value);
  return { [top]: root };
}
