import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (keeping the shown data until the new answer arrives). */
  reload: () => void;
}

/**
 * Runs `load` when `deps` change and on reload(); an answer that arrives after a newer request started
 * is dropped, so a slow answer never overwrites a newer filter's.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) =>
        mine === generation.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `fn` every `ms` while the page is visible (no background polling of hidden tabs). */
export function useInterval(fn: () => void, ms: number | undefined): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (ms === undefined) return;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/**
 * The page's filters live in the URL's query, so that every view is a deep link. `set` replaces the
 * given parameters (undefined or '' removes one) and keeps the others.
 */
export function useQueryState(): {
  query: Record<string, string>;
  set: (patch: Record<string, string | number | undefined>, options?: { push?: boolean }) => void;
} {
  const location = useLocation();
  const set = useCallback(
    (patch: Record<string, string | number | undefined>, options: { push?: boolean } = {}) => {
      const params = new URLSearchParams(location.query);
      for (const [name, value] of Object.entries(patch)) {
        if (value === undefined || value === '') params.delete(name);
        else params.set(name, String(value));
      }
      const search = params.toString();
      location.route(location.path + (search ? `?${search}` : ''), !options.push);
    },
    [location],
  );
  return { query: location.query, set };
}
