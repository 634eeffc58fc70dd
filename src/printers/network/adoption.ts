// After our restart a network printer may still print one of our jobs: whether to look for it, and when it started on
// our monotonic clock (which did not run before the restart). Pure.
import type { Instant } from '../../clock.js';

/** With a job already followed: the same job is simply handed back, another one means this printer is taken. */
export function adoptionStep(current: { id: string; ended: boolean } | null, jobId: string): 'same' | 'taken' | 'look' {
  if (!current || current.ended) return 'look';
  return current.id === jobId ? 'same' : 'taken';
}

/**
 * The adopted job's start: the stored wall-clock start for the record; on the monotonic clock the printer's own
 * reading of how long it has printed when it gives one, else the wall clock's (the one reading that survives a restart).
 */
export function adoptedStart(now: Instant, startedAt: number, reportedSeconds: number | null): Instant {
  const sinceMs = reportedSeconds !== null ? reportedSeconds * 1000 : Math.max(0, now.wall - startedAt);
  return { wall: startedAt, monotonic: now.monotonic - sinceMs };
}
