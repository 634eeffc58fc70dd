// Pure calendar maths for analytics time series: the start of the hour/day/week/month holding an instant, in an IANA zone (DST-aware).

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall clock reading in `tz` at instant `ms`. */
export function wallClock(ms: number, tz: string): Wall {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour!, mi: parts.minute!, s: parts.second! };
}

/** Offset of `tz` from UTC at instant `ms`, in ms (Berlin summer: +2 h). */
function offsetAt(ms: number, tz: string): number {
  const w = wallClock(ms, tz);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The instant a wall time (month/day may overflow, Date.UTC normalises) happens in `tz`. A wall time skipped by a
 * DST jump resolves to the first instant after the gap; an ambiguous one (clocks back) to its first occurrence.
 */
export function wallToInstant(y: number, mo: number, d: number, h: number, tz: string): number {
  const asUtc = Date.UTC(y, mo - 1, d, h);
  const first = asUtc - offsetAt(asUtc, tz);
  const second = asUtc - offsetAt(first, tz);
  if (first === second) return first;
  // Two candidates: keep one whose wall clock reads the asked hour, else (a gap) the later one.
  const earlier = Math.min(first, second);
  const reads = (ms: number): boolean => {
    const w = wallClock(ms, tz);
    return Date.UTC(w.y, w.mo - 1, w.d, w.h) === asUtc;
  };
  return reads(earlier) ? earlier : Math.max(first, second);
}

/** Start (UTC ms) of the bucket of `interval` in `tz` holding instant `ms`. Weeks start on Monday (ISO 8601). */
export function bucketStart(ms: number, interval: Interval, tz: string): number {
  const w = wallClock(ms, tz);
  switch (interval) {
    case 'hour':
      // Hours are counted on the real time line so the repeated hour of a clocks-back night gives two buckets.
      return ms - ((w.mi * 60 + w.s) * 1000 + (((ms % 1000) + 1000) % 1000));
    case 'day':
      return wallToInstant(w.y, w.mo, w.d, 0, tz);
    case 'week': {
      const weekday = (new Date(Date.UTC(w.y, w.mo - 1, w.d)).getUTCDay() + 6) % 7; // Monday 0
      return wallToInstant(w.y, w.mo, w.d - weekday, 0, tz);
    }
    case 'month':
      return wallToInstant(w.y, w.mo, 1, 0, tz);
  }
}

/** Start of the bucket after the one starting at `start`. */
export function nextBucket(start: number, interval: Interval, tz: string): number {
  if (interval === 'hour') return start + 3_600_000;
  const w = wallClock(start, tz);
  if (interval === 'day') return wallToInstant(w.y, w.mo, w.d + 1, 0, tz);
  if (interval === 'week') return wallToInstant(w.y, w.mo, w.d + 7, 0, tz);
  return wallToInstant(w.y, w.mo + 1, 1, 0, tz);
}

/** Bucket starts covering [fromMs, toMs): the first holds fromMs. Stops (returns null) past `max` buckets. */
export function bucketRange(fromMs: number, toMs: number, interval: Interval, tz: string, max: number): number[] | null {
  const out: number[] = [];
  for (let b = bucketStart(fromMs, interval, tz); b < toMs; b = nextBucket(b, interval, tz)) {
    if (out.length >= max) return null;
    out.push(b);
  }
  return out;
}

/** Local label of a bucket start: "2026-03-29" for day/week/month, "2026-03-29T02:00+02:00" style for hours. */
export function bucketLabel(start: number, interval: Interval, tz: string): string {
  const w = wallClock(start, tz);
  const p = (n: number): string => String(n).padStart(2, '0');
  const date = `${w.y}-${p(w.mo)}-${p(w.d)}`;
  if (interval !== 'hour') return interval === 'month' ? date.slice(0, 7) : date;
  const off = Math.round(offsetAt(start, tz) / 60_000);
  const sign = off < 0 ? '-' : '+';
  return `${date}T${p(w.h)}:00${sign}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
}
