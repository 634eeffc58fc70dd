// Small timing hooks of the printer page: a clock for times counted from a past answer, and a coalescing trigger.
import { useEffect, useRef, useState } from 'preact/hooks';
import { now } from '../lib/clock.js';

/** Re-renders every `ms` so times counted from a past answer stay current (no request is made). */
export function useNow(ms: number): number {
  const [at, setAt] = useState(now());
  useEffect(() => {
    const t = setInterval(() => setAt(now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return at;
}

/** A trigger that runs `fn` once, `ms` after the first of a burst of calls (a burst of events makes one request). */
export function useCoalesced(fn: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      fnRef.current();
    }, ms);
  };
}
