// Data hooks of the pages: load a resource, reload it when a live event says it changed, and run actions with busy/error state.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { subscribe, type LiveEvent } from './live.js';
import { errorWords } from './error-words.js';

export interface Resource<T> {
  data: T | undefined;
  /** The failure of the last load in words, or null. Data from an earlier load stays shown. */
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
  /** Replace the data locally (an answer to an action, a live event) without a request. */
  set: (next: T | ((prev: T | undefined) => T)) => void;
}

/** Loads `load()` now and whenever `deps` change; `reload()` loads again keeping the old data on screen meanwhile. */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[] = []): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const next = await loadRef.current();
      if (mine === generation.current) {
        setData(next);
        setError(null);
      }
    } catch (err) {
      if (mine === generation.current) setError(errorWords(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, deps);
  return { data, error, loading, reload, set: setData as Resource<T>['set'] };
}

/**
 * Calls `onEvent` for live events whose type matches one of `patterns` ('job.*', 'printer.telemetry', '*'). Unlike the
 * server's stream filter, a group wildcard here also takes the live-only types of its group (printer.* gets
 * printer.telemetry): the tab's one stream already asked for exactly what the dashboard shows.
 */
export function useLive(patterns: readonly string[], onEvent: (event: LiveEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = patterns.join(',');
  useEffect(
    () =>
      subscribe((event) => {
        const hit = patterns.some((p) => p === '*' || p === event.type || (p.endsWith('.*') && event.type.startsWith(p.slice(0, -1))));
        if (hit) handler.current(event);
      }),
    [key],
  );
}

/** Reloads a resource at most every `ms` when live events of `patterns` arrive (coalesces bursts into one request). */
export function useReloadOn(patterns: readonly string[], resource: { reload: () => Promise<void> }, ms = 500): void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useLive(patterns, () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void resource.reload();
    }, ms);
  });
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
}

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<boolean>;
  busy: boolean;
  /** The last failure in words (kept until the next run), or null. */
  error: string | null;
  clearError: () => void;
}

/** Wraps an async action: busy while it runs, its failure in words; resolves true on success. Inputs are never reset here. */
export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const run = useCallback(async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await fnRef.current(...args);
      return true;
    } catch (err) {
      setError(errorWords(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, error, clearError: () => setError(null) };
}
