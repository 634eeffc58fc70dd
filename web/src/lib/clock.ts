// The dashboard's one clock: the server's time, learned from the Date header of its answers, so every page reads
// "now" on the clock that stamps the jobs and plans the forecast (and a server started with a test clock drives the page).

/** What the answers so far prove about (server time − browser time), in ms: it lies within [low, high]. */
export interface OffsetBounds {
  low: number;
  high: number;
}

/**
 * Narrows the bounds with one answer. Its Date header `serverMs` is the server's time truncated to the second, taken
 * somewhere between `sentAt` and `receivedAt` (browser time), so the offset lies in [serverMs − receivedAt,
 * serverMs + 1000 − sentAt]. Answers that contradict the bounds so far mean a clock was set: start over from this one.
 */
export function narrowOffset(bounds: OffsetBounds | null, serverMs: number, sentAt: number, receivedAt: number): OffsetBounds {
  const fresh = { low: serverMs - receivedAt, high: serverMs + 1000 - sentAt };
  if (!bounds) return fresh;
  const low = Math.max(bounds.low, fresh.low);
  const high = Math.min(bounds.high, fresh.high);
  return low <= high ? { low, high } : fresh;
}

let bounds: OffsetBounds | null = null;
let offsetMs = 0;

/** Feeds one server answer's Date header (ignored when missing or unreadable). */
export function learnServerTime(dateHeader: string | null, sentAt: number, receivedAt: number): void {
  const serverMs = dateHeader ? Date.parse(dateHeader) : NaN;
  if (!Number.isFinite(serverMs)) return;
  bounds = narrowOffset(bounds, serverMs, sentAt, receivedAt);
  offsetMs = Math.round((bounds.low + bounds.high) / 2);
}

/** Milliseconds since the epoch on the server's clock (the browser's until the first answer). Every page uses this. */
export const now = (): number => Date.now() + offsetMs;
