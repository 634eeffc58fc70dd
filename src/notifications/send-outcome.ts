// The notification delivery state machine in one pure function: what one send attempt means for the message (sent,
// retried after back-off or the service's Retry-After, given up) and for its channel (failures in a row, paused and why).
import { nextAttemptAt } from '../webhooks/retry-schedule.js';

export interface SendResult {
  ok: boolean;
  /** What the service said, for the log: "HTTP 204", "SMTP 250", "HTTP 429". Null when it was not reached. */
  status: string | null;
  error: string | null;
  /** The service asked to wait this long (429 Retry-After); null when it did not say. */
  retryAfterMs: number | null;
  /** The service refused for good (bad token, unknown chat, authentication failed): retrying cannot help. */
  permanent: boolean;
}

export type SendDecision = {
  delivery: { status: 'delivered' } | { status: 'pending'; nextAttemptMs: number } | { status: 'failed' };
  failuresInARow: number;
  /** Set when the channel must pause (its messages wait, nothing is dropped): the reason people read. */
  pause: string | null;
};

/** Attempts failing in a row (over the channel's messages) after which it pauses, so a dead channel does not retry for a day. */
export const PAUSE_AFTER_FAILURES = 5;

/**
 * `attempts` counts the attempt just made; `failuresBefore` the channel's failed attempts in a row before it. A test
 * message is one-shot and never pauses the channel. A 429 is the service pacing us, not a failure: it waits at least
 * Retry-After and does not count toward pausing. A permanent refusal pauses at once, keeping the message pending.
 */
export function decideAfterSend(r: SendResult, attempts: number, failuresBefore: number, nowMs: number, random: number, isTest: boolean, delayScale = 1): SendDecision {
  if (r.ok) return { delivery: { status: 'delivered' }, failuresInARow: 0, pause: null };
  if (isTest) return { delivery: { status: 'failed' }, failuresInARow: failuresBefore, pause: null };
  const why = r.error ?? r.status ?? 'unknown error';
  if (r.permanent) return { delivery: { status: 'pending', nextAttemptMs: nowMs }, failuresInARow: failuresBefore + 1, pause: `the service refused: ${why}` };
  const paced = r.retryAfterMs !== null;
  const scheduled = nextAttemptAt(attempts, nowMs, random, delayScale);
  if (scheduled === null && !paced) return { delivery: { status: 'failed' }, failuresInARow: failuresBefore + 1, pause: null };
  const next = Math.max(scheduled ?? nowMs, paced ? nowMs + r.retryAfterMs! : 0);
  const failuresInARow = paced ? failuresBefore : failuresBefore + 1;
  const pause = failuresInARow >= PAUSE_AFTER_FAILURES ? `${failuresInARow} attempts in a row failed, the last: ${why}` : null;
  return { delivery: { status: 'pending', nextAttemptMs: next }, failuresInARow, pause };
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. Capped at a day. */
export function retryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (!header) return null;
  const secs = Number(header);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(header) - nowMs;
  return Number.isFinite(ms) ? Math.min(Math.max(0, Math.ceil(ms)), 86_400_000) : null;
}
