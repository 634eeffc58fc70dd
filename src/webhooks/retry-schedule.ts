// Pure retry policy of deliveries: exponential back-off with jitter, spanning about 24 hours over 11 attempts.

/** Seconds to wait after failed attempt n (index n-1): 30 s doubling-ish up to 8 h; they sum to 23.9 h. */
export const RETRY_DELAYS_S: readonly number[] = [30, 60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 28_800];
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** ± this fraction of each delay, so many deliveries failing together do not retry in lockstep. */
export const JITTER = 0.1;

/**
 * When to try again after `attempts` attempts have failed, or null when that was the last one.
 * `random` is in [0, 1) (Math.random in production, fixed in tests). `scale` multiplies every delay: 1 in production;
 * the benchmark shrinks the 24-hour schedule (same shape, same number of attempts) to finish in seconds.
 */
export function nextAttemptAt(attempts: number, nowMs: number, random: number, scale = 1): number | null {
  const base = RETRY_DELAYS_S[attempts - 1];
  if (base === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random;
  return nowMs + Math.round(base * 1000 * scale * factor);
}
