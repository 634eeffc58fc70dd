// Pure rules of a spool's fill level: status (active/empty), the once-only material.low latch, and which events a change fires.

export interface LevelState {
  remaining_weight: number;
  reorder_threshold: number | null;
  status: 'active' | 'empty' | 'archived';
  low_notified: number;
}

export type LevelEvent = 'material.low' | 'material.empty';

const isLow = (remaining: number, threshold: number | null): boolean => threshold !== null && remaining <= threshold;

/**
 * The level after `remaining` replaces the old one (a consumption, a weigh-in, a PATCH). material.low fires once when
 * the spool is at or below its threshold and has not fired for this fill; the latch opens again only when the level
 * is back above the threshold (a refill). material.empty fires when the level reaches 0 on a spool that was not empty;
 * a refill of an empty spool makes it active again. An archived spool keeps its status and fires nothing.
 */
export function nextLevel(before: LevelState, remaining: number, threshold: number | null = before.reorder_threshold): { state: LevelState; events: LevelEvent[] } {
  const value = Math.max(0, remaining);
  const events: LevelEvent[] = [];
  let status = before.status;
  let lowNotified = before.low_notified;
  if (!isLow(value, threshold)) lowNotified = 0;
  if (status !== 'archived') {
    if (isLow(value, threshold) && lowNotified === 0) {
      lowNotified = 1;
      events.push('material.low');
    }
    if (value === 0 && status !== 'empty') {
      status = 'empty';
      events.push('material.empty');
    } else if (value > 0 && status === 'empty') status = 'active';
  }
  return { state: { remaining_weight: value, reorder_threshold: threshold, status, low_notified: lowNotified }, events };
}

/** A new spool: no event at creation, but a spool born below its threshold counts as notified (it did not cross it). */
export function initialLevel(remaining: number, threshold: number | null): Pick<LevelState, 'status' | 'low_notified'> {
  return { status: remaining === 0 ? 'empty' : 'active', low_notified: isLow(remaining, threshold) ? 1 : 0 };
}
