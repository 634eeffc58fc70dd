// The delivery state machine in one pure function: what an attempt's result means for the delivery and its webhook.
import { nextAttemptAt } from './retry-schedule.js';

export interface AttemptResult {
  /** The receiver's HTTP status, or null when it was not reached (refused, timed out, reset). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** At most 1 KB of the response body. */
  excerpt: string | null;
  /** The receiver's Retry-After header, as sent (notifications honour it; webhooks keep their schedule). */
  retryAfter?: string;
}

export type DeliveryDecision =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptMs: number }
  /** `disableWebhook`: the receiver said 410 Gone, it wants nothing more. */
  | { status: 'failed'; disableWebhook: boolean };

/**
 * `attempts` counts the attempt just made. 2xx is success; 410 ends the delivery and disables the webhook; anything
 * else (3xx included: redirects are not followed) retries on the back-off schedule until it runs out.
 * `retries` is false for webhook.test deliveries, which are a one-shot check; `delayScale` see nextAttemptAt.
 */
export function decideAfterAttempt(result: AttemptResult, attempts: number, nowMs: number, random: number, retries = true, delayScale = 1): DeliveryDecision {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { status: 'delivered' };
  if (code === 410) return { status: 'failed', disableWebhook: true };
  const next = retries ? nextAttemptAt(attempts, nowMs, random, delayScale) : null;
  return next === null ? { status: 'failed', disableWebhook: false } : { status: 'pending', nextAttemptMs: next };
}
