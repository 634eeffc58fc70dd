// Test helper for wall-clock jumps: a job's elapsed_ms, read between two monotonic readings, checked against the real
// time those readings bound (the job started somewhere between two earlier readings).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

/**
 * Reads `elapsed()` now and asserts it lies between the real time since the latest possible start (`startedBy`) and
 * since the earliest (`startedFrom`), give or take `slackMs` (1 ms for rounding; more where the printer rounds).
 */
export function assertElapsedWithin(elapsed: () => number, startedFrom: number, startedBy: number, when: string, slackMs = 1): number {
  const before = performance.now();
  const value = elapsed();
  const after = performance.now();
  const min = before - startedBy - slackMs;
  const max = after - startedFrom + slackMs;
  assert.ok(value >= 0 && value >= min && value <= max, `${when}: elapsed_ms ${value}, the real time is ${Math.round(min)}..${Math.round(max)} ms`);
  return value;
}
