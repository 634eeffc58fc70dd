// Pure webhook signing: X-Signature "t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>" with one v1 per active secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signPayload = (secret: string, timestamp: number, rawBody: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');

/** The header value; during a secret rotation both secrets sign, so a receiver holding either one verifies. */
export function signatureHeader(secrets: readonly string[], timestampS: number, rawBody: string): string {
  return [`t=${timestampS}`, ...secrets.map((s) => `v1=${signPayload(s, timestampS, rawBody)}`)].join(',');
}

/**
 * The receiver's check (used by tests and documented in docs/webhooks.md, "A receiver in Node"): some v1 matches and t is within
 * `toleranceS` of now, so a captured delivery cannot be replayed later.
 */
export function verifySignature(header: string, secret: string, rawBody: string, nowS: number, toleranceS = 300): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS) return false;
  const expected = Buffer.from(signPayload(secret, t, rawBody), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v as string, 'hex'), expected));
}
