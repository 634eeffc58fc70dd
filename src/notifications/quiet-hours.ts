// Pure: whether a moment falls in a channel's quiet hours (minutes after midnight in the organization's time zone),
// and when they end, so held messages go out then as one digest.

/** Minutes after local midnight of `ms` in `timeZone`, and the seconds/ms into that minute. */
function localMinute(ms: number, timeZone: string): { minute: number; intoMinuteMs: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { minute: get('hour') * 60 + get('minute'), intoMinuteMs: ms % 60_000 };
}

/**
 * The ms when the quiet hours containing `nowMs` end, or null when `nowMs` is outside them (or none are set).
 * start > end spans midnight (22:00 to 07:00); start === end means no quiet hours. A daylight-saving jump inside the
 * window moves its end by that hour at most, which a digest tolerates.
 */
export function quietUntil(nowMs: number, timeZone: string, startMin: number | null, endMin: number | null): number | null {
  if (startMin === null || endMin === null || startMin === endMin) return null;
  const { minute, intoMinuteMs } = localMinute(nowMs, timeZone);
  const inside = startMin < endMin ? minute >= startMin && minute < endMin : minute >= startMin || minute < endMin;
  if (!inside) return null;
  const minutesLeft = (endMin - minute + 1440) % 1440;
  return nowMs - intoMinuteMs + minutesLeft * 60_000;
}

/** "22:00" to 1320; the API takes and shows HH:MM. */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
export const hhmmOf = (min: number): string => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
